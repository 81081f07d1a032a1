package doctext

import (
	"testing"

	"golang.org/x/text/encoding/charmap"
)

// Texts written for this test, each encoded in the code page its language
// was commonly saved in, must be told apart and read back whole.
func TestDetectSingleByteCodePages(t *testing.T) {
	for _, tc := range []struct {
		lang, text string
		cm         *charmap.Charmap
		want       string
	}{
		{"Turkish", "Benim adım Deniz. Bugün İstanbul'da hava çok güzel, ama yarın yağmur yağacakmış. " +
			"Kardeşim şarkı söylemeyi sever; ağabeyim ise sessiz kalmayı tercih ediyor.", charmap.Windows1254, Windows1254},
		{"Polish", "Wczoraj wieczorem poszliśmy do kina na nowy film. Źródło światła było słabe, " +
			"ale żółta łódź wyglądała pięknie na ekranie.", charmap.Windows1250, Windows1250},
		{"Polish (ISO)", "Wczoraj wieczorem poszliśmy do kina na nowy film. Źródło światła było słabe, " +
			"ale żółta łódź wyglądała pięknie na ekranie.", charmap.ISO8859_2, ISO8859_2},
		{"Czech", "Včera jsme natáčeli na řece. Světlo bylo měkké a kamera zůstala suchá, " +
			"přestože pršelo celý den.", charmap.Windows1250, Windows1250},
		{"Hungarian", "Tegnap a régi filmtárban dolgoztunk. Öt tekercs hiányzott, de végül a pincében " +
			"megtaláltuk őket, egy fűtőtest mögött.", charmap.Windows1250, Windows1250},
		{"Russian", "Вчера вечером мы смотрели старый фильм о путешествии на север. Звук был тихим, " +
			"но картинка оказалась удивительно чёткой.", charmap.Windows1251, Windows1251},
		{"Russian (KOI8-R)", "Вчера вечером мы смотрели старый фильм о путешествии на север. Звук был тихим, " +
			"но картинка оказалась удивительно чёткой.", charmap.KOI8R, KOI8R},
		{"Ukrainian", "Учора ввечері ми дивилися старий фільм про подорож до моря. Звук був тихий, " +
			"але зображення виявилося напрочуд чітким і яскравим.", charmap.Windows1251, Windows1251},
		{"Greek", "Χθες το βράδυ είδαμε μια παλιά ταινία για ένα ταξίδι στη θάλασσα. " +
			"Ο ήχος ήταν καθαρός και η εικόνα πολύ φωτεινή.", charmap.Windows1253, Windows1253},
		{"Greek (ISO)", "Άργησα πολύ σήμερα. Ο Άρης και η Άννα περίμεναν στην Αθήνα ως το βράδυ.", charmap.ISO8859_7, ISO8859_7},
		{"French", "L’été dernier, nous avons tourné un documentaire près de la forêt. " +
			"« C’était magnifique », a déclaré la réalisatrice.", charmap.Windows1252, Windows1252},
		{"German", "Die Größe der Dateien überraschte uns; für den Schnitt brauchten wir trotzdem " +
			"nur zwölf Stunden.", charmap.Windows1252, Latin1},
		{"Icelandic", "Við fórum í ferðalag um landið og tókum upp þætti um fólkið sem býr þar " +
			"á veturna.", charmap.Windows1252, Latin1},
		{"English, pounds", "The bet was £825 and we lost it, then won £12 back at the café.", charmap.Windows1252, Latin1},
		{"Turkish subtitle line", "Başka seçeneğim yoktu.", charmap.Windows1254, Windows1254},
		{"Spanish", "El año pasado grabamos una película en la montaña; la música fue compuesta " +
			"por un niño.", charmap.Windows1252, Latin1},
	} {
		b, err := tc.cm.NewEncoder().Bytes([]byte(tc.text))
		if err != nil {
			t.Fatalf("%s: encode: %v", tc.lang, err)
		}
		if got := Detect(b, true); got.Name != tc.want || got.BOM {
			t.Errorf("%s: detected %+v, want %s", tc.lang, got, tc.want)
		}
		if s, _ := DecodeBytes(b); s != tc.text {
			t.Errorf("%s: decoded %q", tc.lang, s)
		}
	}
}

// BenchmarkDetectSingleByte: the worst case, a 64 KiB head whose every byte
// is outside ASCII and that is not UTF-8, against each candidate.
func BenchmarkDetectSingleByte(b *testing.B) {
	head := make([]byte, sniffLen)
	for i := range head {
		head[i] = byte(0x80 + (i*7919)%128)
	}
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		Detect(head, false)
	}
}
