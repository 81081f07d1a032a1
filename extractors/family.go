package extractors

// Family groups extractors by what they tell about a file, for people: the
// web UI groups an item's metadata panels by it, the extractor list and the
// table of docs/extractors.md are ordered by it. It says nothing about how an extractor
// runs (tools, providers) nor where its code lives.
type Family string

// The families, in the order they are shown (Families).
const (
	FamilyTechnical   Family = "technical"   // store, mime_type, container and stream facts
	FamilyHashes      Family = "hashes"      // checksums of the content
	FamilyImages      Family = "images"      // picture metadata and thumbnails
	FamilyVideo       Family = "video"       // frames and previews of recordings
	FamilyQC          Family = "qc"          // broadcast quality control: black, bars, silence, loudness
	FamilyCaptions    Family = "captions"    // subtitle tracks and caption files
	FamilySpeech      Family = "speech"      // transcripts of what is said
	FamilyText        Family = "text"        // text read in pictures (OCR, slates, credits)
	FamilyDocuments   Family = "documents"   // text and structure of documents
	FamilyNLP         Family = "nlp"         // language, keywords, entities of the text found
	FamilyFaces       Family = "faces"       // faces seen
	FamilyRecognition Family = "recognition" // tags, logos, sports, sounds recognised
	FamilyAdult       Family = "adult"       // adult content
	FamilyPlaces      Family = "places"      // where and in what weather
)

var families = []struct {
	f    Family
	name string
}{
	{FamilyTechnical, "Technical"},
	{FamilyHashes, "Checksums"},
	{FamilyImages, "Images"},
	{FamilyVideo, "Video and Audio Previews"},
	{FamilyQC, "Quality Control"},
	{FamilyCaptions, "Captions"},
	{FamilySpeech, "Speech"},
	{FamilyText, "Text in Pictures"},
	{FamilyDocuments, "Documents"},
	{FamilyNLP, "Language"},
	{FamilyFaces, "Faces"},
	{FamilyRecognition, "Recognition"},
	{FamilyAdult, "Adult Content"},
	{FamilyPlaces, "Places"},
}

// Families returns every family in the order they are shown.
func Families() []Family {
	out := make([]Family, len(families))
	for i, f := range families {
		out[i] = f.f
	}
	return out
}

// Name is the family's display name ("Quality Control"); "" for a family
// that is not one of Families.
func (f Family) Name() string {
	for _, k := range families {
		if k.f == f {
			return k.name
		}
	}
	return ""
}

// Known reports whether f is one of Families.
func (f Family) Known() bool { return f.Name() != "" }
