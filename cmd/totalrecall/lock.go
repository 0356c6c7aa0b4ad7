package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
)

// One process holds a data folder. Before a command opens a graph folder or a search index it
// takes a lock of its own beside the folder (FOLDER.lock): the engine's Badger lock ends the
// process with a stack trace, and a second Bleve on a held index waits on its bolt lock forever.
// A folder held by another process fails at once with one line naming it and pointing at
// --server. serve gives the locks back when it has closed the folders; a command that exits
// leaves that to the kernel. Opening a folder again in the same process finds it held by itself.

var held struct {
	sync.Mutex
	files map[string]*os.File
}

// lockFolder takes dir's lock, or fails with the line a person acts on.
func lockFolder(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	abs = filepath.Clean(abs)
	held.Lock()
	defer held.Unlock()
	if held.files[abs] != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(abs+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := tryLock(f); err != nil {
		raw, _ := os.ReadFile(abs + ".lock")
		f.Close()
		who := "another process"
		if pid := strings.TrimSpace(string(raw)); pid != "" {
			who += " (pid " + pid + ")"
		}
		return domain.Errorf(domain.EUNAVAILABLE, "the data folder %s is held by %s: stop it, or talk to the server that holds it with --server URL (default $%s, else %s)",
			abs, who, client.EnvServer, client.DefaultServer)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(pidString()+"\n"), 0)
	if held.files == nil {
		held.files = map[string]*os.File{}
	}
	held.files[abs] = f
	return nil
}

func pidString() string { return strconv.Itoa(os.Getpid()) }

// unlockFolder gives dir's lock back (the process closed what it opened there).
func unlockFolder(dir string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	abs = filepath.Clean(abs)
	held.Lock()
	defer held.Unlock()
	if f := held.files[abs]; f != nil {
		f.Close() // the flock goes with the file
		delete(held.files, abs)
	}
}

// unlockData gives back the locks lockData took, once the store and index are closed.
func (f *storeFlags) unlockData() {
	uri, idx, err := f.paths()
	if err != nil {
		return
	}
	if p, ok := strings.CutPrefix(uri, "file://"); ok {
		unlockFolder(p)
	}
	unlockFolder(idx)
}

// lockData takes the locks of the folders the store flags name: the embedded graph's folder and
// the search index's.
func (f *storeFlags) lockData() error {
	uri, idx, err := f.paths()
	if err != nil {
		return err
	}
	if p, ok := strings.CutPrefix(uri, "file://"); ok {
		if err := lockFolder(p); err != nil {
			return err
		}
	}
	return lockFolder(idx)
}

// lockGraph takes the lock of the embedded graph's folder only (export and import dump open no
// index).
func (f *storeFlags) lockGraph() error {
	uri, _, err := f.paths()
	if err != nil {
		return err
	}
	if p, ok := strings.CutPrefix(uri, "file://"); ok {
		return lockFolder(p)
	}
	return nil
}
