package places

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "weather",
		DisplayName:    "Weather",
		Family:         extractors.FamilyPlaces,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: false, // a third-party service: enabled by who configures it
		Provider:       "weather",
		After:          []string{"exiv2", "mediainfo"},
		Accept:         extractors.AcceptMIME([]string{"image/", "video/"}),
		Settings:       provider.Settings("WEATHER_API", "weather"),
		Fields: []extractors.Field{
			{Path: "temperature_c", Type: extractors.TypeNumber, Doc: "air temperature at the place and time of capture, °C"},
			{Path: "conditions", Type: extractors.TypeString, Doc: `conditions in the provider's words ("light rain")`},
			{Path: "wind.speed_kmh", Type: extractors.TypeNumber, Doc: "wind speed, km/h"},
			{Path: "wind.direction_deg", Type: extractors.TypeNumber, Doc: "direction the wind comes from, degrees clockwise from north"},
			{Path: "source", Type: extractors.TypeString, Doc: "where the provider took the observation from (its words), else the provider's host"},
			{Path: "time", Type: extractors.TypeDate, Doc: "the capture time asked about (exiv2 created, else mediainfo creation_time)"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			c, err := provider.FromEnv(env)
			if err != nil {
				return nil, err
			}
			return &weather{client: c, run: env.Runner}, nil
		},
	})
}

type weather struct {
	client *provider.Client
	run    *extractors.Runner
}

func (x *weather) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	pos, err := positionNeeded(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	at, _, ok := CaptureTime(in.Prior)
	if !ok {
		return nil, fmt.Errorf("%w: no capture time", extractors.ErrUnsupported)
	}
	var raw json.RawMessage
	input := map[string]any{"latitude": round(pos.Lat, 6), "longitude": round(pos.Lon, 6), "time": at.Format(time.RFC3339)}
	if err := x.client.Call(ctx, "weather", input, &raw); err != nil {
		return nil, err
	}
	data, err := ParseWeather(raw)
	if err != nil {
		return nil, err
	}
	if _, ok := data["source"]; !ok {
		data["source"] = x.client.Host()
	}
	data["time"] = at.Format(time.RFC3339)
	return &extractors.Result{Data: data}, nil
}

// ParseWeather reads the provider's weather answer (see extractors/shared/provider
// for the contract) into Data, keeping only plausible values; an answer
// with none is an error.
func ParseWeather(raw []byte) (map[string]any, error) {
	var w weatherAnswer
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("weather provider: malformed answer: %w", err)
	}
	data := map[string]any{}
	if within(w.TemperatureC, -100, 70) {
		data["temperature_c"] = math.Round(*w.TemperatureC*10) / 10
	}
	if c := provider.CleanText(w.Conditions, 100); c != "" {
		data["conditions"] = c
	}
	if w.Wind != nil {
		wind := map[string]any{}
		if within(w.Wind.SpeedKmh, 0, 500) {
			wind["speed_kmh"] = math.Round(*w.Wind.SpeedKmh*10) / 10
		}
		if within(w.Wind.DirectionDeg, 0, 360) {
			wind["direction_deg"] = math.Round(*w.Wind.DirectionDeg)
		}
		if len(wind) > 0 {
			data["wind"] = wind
		}
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("weather provider: no usable value in the answer")
	}
	if s := provider.CleanText(w.Source, 100); s != "" {
		data["source"] = s
	}
	return data, nil
}

// weatherAnswer is the result of the provider's weather task.
type weatherAnswer struct {
	TemperatureC *float64    `json:"temperature_c"`
	Conditions   string      `json:"conditions"`
	Wind         *windAnswer `json:"wind"`
	Source       string      `json:"source"`
}

type windAnswer struct {
	SpeedKmh     *float64 `json:"speed_kmh"`
	DirectionDeg *float64 `json:"direction_deg"`
}

func within(v *float64, lo, hi float64) bool {
	return v != nil && *v >= lo && *v <= hi
}
