package source

import "golang.org/x/sys/windows"

// underWine reports whether the test runs under Wine (.ci/run runs some
// tests there), whose ntdll has wine_get_version, which Windows's lacks.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
