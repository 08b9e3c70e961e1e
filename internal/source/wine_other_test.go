//go:build !windows

package source

// underWine: only a Windows binary runs under Wine.
func underWine() bool { return false }
