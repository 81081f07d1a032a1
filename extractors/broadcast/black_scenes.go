package broadcast

import "github.com/metaharvest/metaharvest/extractors"

func init() {
	register(extractors.Info{
		Name:        "black_scenes",
		DisplayName: "Black Scenes",
		Family:      extractors.FamilyQC,
		Version:     "1.0.0",
		Fields:      summaryFields("scenes", "black stretches", "black", "video"),
	}, picture, blackScenes)
}

// blackScenes lists the stretches where the picture is black
// (blackdetect: 98% of the pixels under 10% of the luma range, for at
// least 0.5 s), in time order, the first 1000 of them.
func blackScenes(p *pass) (map[string]any, error) {
	return summaryData("scenes", p.blackRanges(), p.end), nil
}
