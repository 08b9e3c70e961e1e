package httprule

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestParseQValue(t *testing.T) {
	t.Parallel()
	rows := []row[string, weight]{
		{"", "0", weight{0, true}},
		{"", "1", weight{1000, true}},
		{"", "0.", weight{0, true}},
		{"", "1.", weight{1000, true}},
		{"", "0.5", weight{500, true}},
		{"", "0.05", weight{50, true}},
		{"", "0.005", weight{5, true}},
		{"", "0.123", weight{123, true}},
		{"", "0.999", weight{999, true}},
		{"", "0.000", weight{0, true}},
		{"", "1.0", weight{1000, true}},
		{"", "1.000", weight{1000, true}},
		{"", "1.001", weight{0, false}},
		{"", "1.5", weight{0, false}},
		{"", "2", weight{0, false}},
		{"", "0.1234", weight{0, false}},
		{"", "0.0000", weight{0, false}},
		{"", "", weight{0, false}},
		{"", ".", weight{0, false}},
		{"", ".5", weight{0, false}},
		{"", "-0", weight{0, false}},
		{"", "+1", weight{0, false}},
		{"", "0,5", weight{0, false}},
		{"", "0.5a", weight{0, false}},
		{"", "0.a", weight{0, false}},
		{"", "00", weight{0, false}},
		{"", "01", weight{0, false}},
		{"", "1e0", weight{0, false}},
		{"", " 1", weight{0, false}},
		{"", "1 ", weight{0, false}},
		{"", "abc", weight{0, false}},
	}
	for i := range rows {
		rows[i].name = strconv.Quote(rows[i].in)
	}
	table(t, "ParseQValue", func(s string) weight {
		w, ok := ParseQValue(s)
		return weight{w, ok}
	}, rows)
}

func TestWeight(t *testing.T) {
	t.Parallel()
	table(t, "Weight", func(params string) weight {
		w, ok := Weight(params)
		return weight{w, ok}
	}, []row[string, weight]{
		{"none", "", weight{1000, true}},
		{"q", "q=0.5", weight{500, true}},
		{"upper-case name", "Q=0.5", weight{500, true}},
		{"spaces", " q = 0.25 ", weight{250, true}},
		{"zero", "q=0", weight{0, true}},
		{"zero with decimals", "q=0.000", weight{0, true}},
		{"other parameters", "level=1; charset=x", weight{1000, true}},
		{"after media-type parameters", "level=1;q=0.3", weight{300, true}},
		{"last q counts", "q=0;q=1", weight{1000, true}},
		{"last q counts, down", "q=1;q=0", weight{0, true}},
		{"malformed", "q=.5", weight{0, false}},
		{"malformed among valid", "q=0.5;q=2", weight{0, false}},
		{"empty value", "q=", weight{0, false}},
		{"no value", "q", weight{0, false}},
		{"four decimals", "q=0.0001", weight{0, false}},
		{"over one", "q=1.5", weight{0, false}},
		{"a name ending in q", "xq=5", weight{1000, true}},
		{"a q inside a value", "x=q=5", weight{1000, true}},
		{"empty parameters", ";;", weight{1000, true}},
	})
}

// qvalueRE is RFC 9110 §12.4.2's qvalue.
var qvalueRE = regexp.MustCompile(`^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$`)

// FuzzParseQValue compares ParseQValue with the grammar and with
// strconv.ParseFloat.
func FuzzParseQValue(f *testing.F) {
	for _, s := range []string{"0", "1", "0.", "0.5", "0.123", "1.000", "1.001", ".5", "00", "0.1234", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, ok := ParseQValue(s)
		if ok != qvalueRE.MatchString(s) {
			t.Fatalf("ParseQValue(%q) ok = %v, grammar says %v", s, ok, !ok)
		}
		if !ok {
			return
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(s, "."), 64)
		if err != nil || int(f*1000+0.5) != w {
			t.Fatalf("ParseQValue(%q) = %d, ParseFloat says %v (%v)", s, w, f, err)
		}
	})
}
