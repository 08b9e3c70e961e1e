package main

import (
	"fmt"
	"math"
	"strings"
)

// titled is ", " and t, or nothing for an empty t.
func titled(t string) string {
	if t == "" {
		return ""
	}
	return ", " + t
}

func row(b *strings.Builder, cols []string) {
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n")
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func modeShort(mode string) string {
	if mode == "keepalive" {
		return "ka"
	}
	return mode
}

// rate formats requests per second: 78.4k, 512, 3.2.
func rate(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v >= 1000:
		return fmt.Sprintf("%.1fk", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func ratio(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f×", v)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", v*100)
}

// sizeLabel writes n bytes as 1 KiB, 256 KiB, 10 MiB.
func sizeLabel(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// micros formats a figure in µs or MB/s: whole above 100, one decimal below.
func micros(v float64) string {
	// Against the rounded value, so 99.97 is written 100, not 100.0.
	if math.Round(v*10) >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// latency writes µs as µs or ms.
func latency(us float64) string {
	switch {
	case math.IsNaN(us):
		return "-"
	case us >= 1e6:
		return fmt.Sprintf("%.2f s", us/1e6)
	case us >= 1000:
		return fmt.Sprintf("%.1f ms", us/1000)
	}
	return fmt.Sprintf("%.0f µs", us)
}

// hitRatio writes a share with one decimal: 99.5%.
func hitRatio(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", v*100)
}

func mib(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", v/(1<<20))
}
