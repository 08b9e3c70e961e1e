package main

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"time"

	"github.com/jaws-go/jaws/internal/sitefiles"
	jawsmw "github.com/jaws-go/jaws/middleware"
)

// timeHandler answers with the server's time.
func timeHandler(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"time": time.Now().UTC().Format(time.RFC3339)})
}

// maxListed bounds /api/files, for a -root with many files.
const maxListed = 200

// fileInfo is one entry of /api/files.
type fileInfo struct {
	Name         string `json:"name"`
	Size         int64  `json:"size"`
	CacheControl string `json:"cacheControl"`
}

// filesHandler lists the regular files of fsys, the files the site serves
// (hidden ones left out, as jaws leaves them out), with the Cache-Control
// the default rules give each.
func filesHandler(fsys fs.FS) http.HandlerFunc {
	rules := jawsmw.DefaultCacheRules()
	return func(w http.ResponseWriter, r *http.Request) {
		list := []fileInfo{}
		err := sitefiles.Walk(fsys, func(name string, d fs.DirEntry) error {
			if len(list) == maxListed {
				return fs.SkipAll
			}
			info, err := d.Info()
			if err != nil {
				return nil // gone since the listing
			}
			fi := fileInfo{Name: name, Size: info.Size()}
			for _, rule := range rules {
				if rule.Match == nil || rule.Match("/"+name) {
					fi.CacheControl = rule.Value
					break
				}
			}
			list = append(list, fi)
			return nil
		})
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "listing failed"})
			return
		}
		writeJSON(w, http.StatusOK, list)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}
