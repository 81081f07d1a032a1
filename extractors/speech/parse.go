package speech

import (
	"bufio"
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// maxWords bounds the words read from an engine's output: an hour of fast
// speech is about 10,000.
const maxWords = 200000

// maxWordBytes bounds one word; dictionary words are short.
const maxWordBytes = 64

// ParsePocketsphinx reads the output of pocketsphinx_continuous -time yes:
// for each utterance a line with the hypothesis, then one line per word,
// filler and silence: "word start end posterior", times in seconds from
// the start of the input. Utterances start with "<s>". Fillers (<s>,
// </s>, <sil>, [NOISE], [SPEECH], ++...++) are dropped, alternative
// pronunciation marks ("was(2)") removed. Lines that are not word lines
// (hypotheses, anything else) are skipped, so no output is an error: an
// empty or unreadable output is no words.
func ParsePocketsphinx(out []byte) []Word {
	var words []Word
	utt := -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	sc.Split(scanLinesLenient)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		start, ok1 := parseSeconds(f[1])
		end, ok2 := parseSeconds(f[2])
		conf, ok3 := parseProb(f[3])
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		tok := f[0]
		if tok == "<s>" || utt < 0 {
			utt++
		}
		if isFiller(tok) {
			continue
		}
		text := wordText(tok)
		if text == "" {
			continue
		}
		if end < start {
			end = start
		}
		words = append(words, Word{Text: text, Start: start, End: end, Confidence: conf, Utterance: utt})
		if len(words) >= maxWords {
			break
		}
	}
	return words
}

// scanLinesLenient is bufio.ScanLines that cuts an over-long line instead
// of failing the whole scan.
func scanLinesLenient(data []byte, atEOF bool) (int, []byte, error) {
	adv, tok, err := bufio.ScanLines(data, atEOF)
	if adv == 0 && tok == nil && err == nil && len(data) >= 32<<10 {
		return len(data), data, nil
	}
	return adv, tok, err
}

func isFiller(tok string) bool {
	switch {
	case tok == "<s>", tok == "</s>", tok == "<sil>":
		return true
	case strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]"):
		return true
	case strings.HasPrefix(tok, "++") && strings.HasSuffix(tok, "++"):
		return true
	case strings.HasPrefix(tok, "<") && strings.HasSuffix(tok, ">"):
		return true
	}
	return false
}

// wordText removes the alternative pronunciation mark ("was(2)" -> "was")
// and keeps the word printable and short.
func wordText(tok string) string {
	if i := strings.LastIndexByte(tok, '('); i > 0 && strings.HasSuffix(tok, ")") {
		if _, err := strconv.Atoi(tok[i+1 : len(tok)-1]); err == nil {
			tok = tok[:i]
		}
	}
	tok = strings.ToValidUTF8(tok, "")
	tok = doctext.Cut(tok, maxWordBytes)
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, tok)
}

func parseSeconds(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > maxTime {
		return 0, false
	}
	return v, true
}

func parseProb(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		return 0, false
	}
	return min(max(v, 0), 1), true
}
