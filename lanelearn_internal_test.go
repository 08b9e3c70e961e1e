package jaws

import (
	"fmt"
	"strings"
	"testing"
)

// TestLaneNotesFind: a note is found by its key's parts, each kept apart
// (a Host or X-Forwarded-* of another tenant finds none), without an
// allocation however long the parts are.
func TestLaneNotesFind(t *testing.T) {
	var ns laneNotes
	ns.init()
	long := "/assets/" + strings.Repeat("a", 80) + ".3f9a1c2b.js"
	k := noteKey{host: "shop.example.com", fhost: "tenant-a.example", fproto: "https", target: long}
	ns.put(&laneNote{noteKey: k, key: string(appendKey(nil, k.head, k.host, k.fhost, k.fproto, k.target))})
	find := func(head bool, host, fhost, fproto, target string) *laneNote {
		return ns.find(appendKey(nil, head, []byte(host), []byte(fhost), []byte(fproto), []byte(target)))
	}
	if find(false, k.host, k.fhost, k.fproto, k.target) == nil {
		t.Fatal("the note is not found by its own key")
	}
	for _, miss := range []struct {
		name                        string
		head                        bool
		host, fhost, fproto, target string
	}{
		{"HEAD", true, k.host, k.fhost, k.fproto, k.target},
		{"another Host", false, "other.example.com", k.fhost, k.fproto, k.target},
		{"another X-Forwarded-Host", false, k.host, "tenant-b.example", k.fproto, k.target},
		{"another X-Forwarded-Proto", false, k.host, k.fhost, "http", k.target},
		{"parts moved across", false, k.host + "\x00" + k.fhost, "", k.fproto, k.target},
		{"another target", false, k.host, k.fhost, k.fproto, long + "?v=2"},
	} {
		if find(miss.head, miss.host, miss.fhost, miss.fproto, miss.target) != nil {
			t.Errorf("%s: found the note", miss.name)
		}
	}
	key := appendKey(nil, k.head, []byte(k.host), []byte(k.fhost), []byte(k.fproto), []byte(k.target))
	if n := testing.AllocsPerRun(100, func() { ns.find(key) }); n != 0 {
		t.Errorf("find allocates %.0f times", n)
	}
}

// TestLaneNotesBounded: notes stay within maxLaneNotes and
// maxLaneNoteBytes, however many names are learnt; an eighth are forgotten
// when either is reached.
func TestLaneNotesBounded(t *testing.T) {
	var ns laneNotes
	ns.init()
	put := func(i, size int) {
		k := noteKey{host: "x", target: fmt.Sprintf("/f%d", i)}
		ns.put(&laneNote{noteKey: k, key: string(appendKey(nil, k.head, k.host, k.fhost, k.fproto, k.target)), size: size})
	}
	for i := range maxLaneNotes + 100 {
		put(i, 1)
	}
	if n := len(ns.m); n > maxLaneNotes || n < maxLaneNotes*7/8 {
		t.Errorf("%d notes after %d learnt, want at most %d and about 7/8 of it", n, maxLaneNotes+100, maxLaneNotes)
	}
	ns.init()
	ns.bytes = 0
	for i := range 100 {
		put(i, maxLaneNoteBytes/10)
	}
	if ns.bytes > maxLaneNoteBytes {
		t.Errorf("%d bytes of notes, want at most %d", ns.bytes, maxLaneNoteBytes)
	}
}
