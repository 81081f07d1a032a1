package langid

import (
	"strings"
	"testing"
)

// Texts written for this test: each identified in its language with a
// reliable confidence; a text without letters is none; a long text (past
// whatlanggo's few KiB) is identified by its samples, still reliably.
func TestIdentify(t *testing.T) {
	t.Parallel()
	for code, text := range map[string]string{
		"tr": "Benim adım Deniz ve bu akşam İstanbul'a dönüyorum. Başka seçeneğim yoktu, yarın sabah erkenden limana gideceğiz.",
		"de": "Die Größe der Dateien überraschte uns, aber für den Schnitt brauchten wir trotzdem nur zwölf Stunden und etwas Geduld.",
		"ru": "Вчера вечером мы смотрели старый фильм о путешествии на север. Звук был тихим, но картинка оказалась удивительно чёткой.",
		"el": "Χθες το βράδυ είδαμε μια παλιά ταινία για ένα ταξίδι στη θάλασσα. Ο ήχος ήταν καθαρός και η εικόνα πολύ φωτεινή.",
	} {
		lang, ok := Identify(text)
		if !ok || lang.Code != code || !lang.Reliable || lang.Confidence <= 0.8 || lang.Confidence > 1 {
			t.Errorf("%s: %+v %v", code, lang, ok)
		}
	}
	if lang, ok := Identify("12345 67 !!"); ok {
		t.Errorf("digits identified as %+v", lang)
	}
	long := strings.Repeat("The archive keeps every recording of the harbour and the ferries that crossed it in winter. ", 400)
	if lang, ok := Identify(long); !ok || lang.Code != "en" || !lang.Reliable || lang.Script != "Latin" {
		t.Errorf("long English text: %+v", lang)
	}
}
