// Command layercheck checks that the root package's files keep to the layers
// CONTRIBUTING.md maps: a file uses only files of its own layer or of the
// layers below, but for the exceptions the map names, and every file of the
// package is on the map. It type-checks the package as it builds on Linux
// and prints each dependency that runs up a layer. The layers below the
// root package's, packages of their own (internal/source, the files and
// their freshness, under the store), use no layer above them: they import
// no package of the module. CI runs it:
//
//	go run ./internal/layercheck
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	problems, err := check(dir)
	if err == nil {
		var more []string
		more, err = checkBelow(dir)
		problems = append(problems, more...)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "layercheck:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
	fmt.Println("layercheck: every file keeps to its layer")
}

// layerMap is the map in CONTRIBUTING.md: each file's layer (1 is the top),
// and the files each file may use above its layer.
type layerMap struct {
	layer      map[string]int
	exceptions map[string]map[string]bool
}

var (
	rowRE  = regexp.MustCompile(`^\|\s*(\d+)\.`)
	fileRE = regexp.MustCompile("`([^`]+\\.go)`")
)

// readMap reads the rows of the layer table ("| N. name | `a.go` `b_*.go` |
// ...") and the exceptions line ("**Exceptions** ...: `x.go` uses `y.go`,
// `z.go`; ...") of CONTRIBUTING.md in dir.
func readMap(dir string, goFiles []string) (layerMap, error) {
	m := layerMap{layer: map[string]int{}, exceptions: map[string]map[string]bool{}}
	f, err := os.Open(filepath.Join(dir, "CONTRIBUTING.md"))
	if err != nil {
		return m, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if r := rowRE.FindStringSubmatch(line); r != nil {
			n, _ := strconv.Atoi(r[1])
			cells := strings.Split(line, "|")
			if len(cells) < 3 {
				continue
			}
			for _, g := range fileRE.FindAllStringSubmatch(cells[2], -1) {
				for _, name := range goFiles {
					if ok, _ := filepath.Match(g[1], name); ok {
						m.layer[name] = n
					}
				}
			}
		}
		if rest, ok := strings.CutPrefix(line, "**Exceptions**"); ok {
			for _, clause := range strings.Split(rest, ";") {
				files := fileRE.FindAllStringSubmatch(clause, -1)
				if len(files) < 2 {
					continue
				}
				from := files[0][1]
				if m.exceptions[from] == nil {
					m.exceptions[from] = map[string]bool{}
				}
				for _, to := range files[1:] {
					m.exceptions[from][to[1]] = true
				}
			}
		}
	}
	return m, sc.Err()
}

func check(dir string) ([]string, error) {
	ctx := build.Default
	ctx.GOOS = "linux"
	pkg, err := ctx.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	m, err := readMap(dir, pkg.GoFiles)
	if err != nil {
		return nil, err
	}
	var problems []string
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		if _, ok := m.layer[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s is on no layer of CONTRIBUTING.md's map", name))
		}
		af, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, af)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	tpkg, err := conf.Check(pkg.ImportPath, fset, files, info)
	if err != nil {
		return nil, err
	}
	up := map[[2]string]int{}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != tpkg || !obj.Pos().IsValid() {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		lf, lt := m.layer[from], m.layer[to]
		if from == to || lf == 0 || lt == 0 || lt >= lf || m.exceptions[from][to] {
			continue
		}
		up[[2]string{from, to}]++
	}
	var keys [][2]string
	for k := range up {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		problems = append(problems, fmt.Sprintf("%s (layer %d) uses %s (layer %d) %d times: a layer above",
			k[0], m.layer[k[0]], k[1], m.layer[k[1]], up[k]))
	}
	return problems, nil
}

// below are the layers under the root package's that are packages of their
// own, by directory.
var below = []string{"internal/source"}

// checkBelow reports each import of a package of the module (whose path
// go.mod in dir gives) by a package of below, for any system it builds on.
func checkBelow(dir string) ([]string, error) {
	mod, err := modulePath(dir)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, rel := range below {
		ctx := build.Default
		ctx.UseAllFiles = true // every system's files: the union of their imports
		pkg, err := ctx.ImportDir(filepath.Join(dir, rel), build.IgnoreVendor)
		if err != nil {
			return nil, err
		}
		for _, imp := range pkg.Imports {
			if imp == mod || strings.HasPrefix(imp, mod+"/") {
				problems = append(problems, fmt.Sprintf("%s (below the store) imports %s: it uses no package of the module", rel, imp))
			}
		}
	}
	return problems, nil
}

// modulePath is the module path go.mod in dir declares.
func modulePath(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("no module line in %s", filepath.Join(dir, "go.mod"))
}
