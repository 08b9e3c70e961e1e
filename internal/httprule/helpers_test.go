package httprule

import "testing"

// row is one case of a table test: its name, the input and the answer.
type row[In any, Out comparable] struct {
	name string
	in   In
	want Out
}

// table checks f against each row, in parallel subtests named by the rows;
// fn names f in failures.
func table[In any, Out comparable](t *testing.T, fn string, f func(In) Out, rows []row[In, Out]) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			if got := f(r.in); got != r.want {
				t.Errorf("%s(%#v) = %v, want %v", fn, r.in, got, r.want)
			}
		})
	}
}

// two is a pair of arguments.
type two[A, B any] struct {
	a A
	b B
}

// weight is the answer of ParseQValue and Weight.
type weight struct {
	w  int
	ok bool
}
