package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
)

// A shard is the part of a sweep's cases one process runs, so that N
// processes, one a GPU, run a long sweep between them: shard K of N has
// the cases whose place in the sweep's order, from 0, is K-1 modulo N.
// The zero shard is the whole sweep.
type shard struct{ k, n int }

// parseShard reads -shard's K/N.
func parseShard(s string) (shard, error) {
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return shard{}, errors.New("want K/N, such as 1/4: shard K of N")
	}
	ki, kerr := strconv.Atoi(k)
	ni, nerr := strconv.Atoi(n)
	if kerr != nil || nerr != nil || ni < 1 || ki < 1 || ki > ni {
		return shard{}, errors.New("want K/N with 1 <= K <= N, such as 1/4")
	}
	return shard{ki, ni}, nil
}

// whole reports whether s is the whole sweep.
func (s shard) whole() bool { return s.n <= 1 }

// holds reports whether the case at place i of the sweep is s's.
func (s shard) holds(i int) bool { return s.whole() || i%s.n == s.k-1 }

// suffix is what the shard adds to the run's name.
func (s shard) suffix() string {
	if s.whole() {
		return ""
	}
	return fmt.Sprintf(".shard-%d-of-%d", s.k, s.n)
}

// shardName matches the file name of a shard's run: NAME.shard-K-of-N.txt.
var shardName = regexp.MustCompile(`^(.+)\.shard-([0-9]+)-of-([0-9]+)\.txt$`)

// mergeShards writes the runs of every shard of one sweep, the files
// paths names, as one run, NAME.txt beside them: their contents in shard
// order behind a header line naming them, each as the sweep wrote it.
// It then removes the shards' files. It refuses, naming the files, shards
// of different sweeps, folders or counts, a shard missing or given twice,
// a case in two shards, a file that is not a run, and a NAME.txt that is
// already there. It returns the path written.
func mergeShards(paths []string) (_ string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("-merge: %w", err)
		}
	}()
	name, dir, files, err := shardFiles(paths)
	if err != nil {
		return "", err
	}
	body, commit, err := joinShards(files)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, name+".txt")
	if err := writeMerged(out, append([]byte(runfile.Header(name, commit, "", len(files))), body...)); err != nil {
		return "", err
	}
	for _, p := range files {
		if err := os.Remove(p); err != nil {
			return out, fmt.Errorf("wrote %s, but %w", out, err)
		}
	}
	return out, nil
}

// shardFiles reads the shards' file names, NAME.shard-K-of-N.txt, and
// returns the sweep's name and folder and the files in shard order. It
// refuses a file not so named, shards of different sweeps, folders or
// counts, and a shard named twice or missing.
func shardFiles(paths []string) (name, dir string, files []string, err error) {
	if len(paths) == 0 {
		return "", "", nil, errors.New("no shard files named")
	}
	var first string // the first file, which gives the sweep's name, folder and count
	n := 0
	byShard := map[int]string{}
	for _, p := range paths {
		m := shardName.FindStringSubmatch(filepath.Base(p))
		if m == nil {
			return "", "", nil, fmt.Errorf("%s is not a shard's run (NAME.shard-K-of-N.txt, as sweep -shard K/N writes)", p)
		}
		k, _ := strconv.Atoi(m[2])
		kn, _ := strconv.Atoi(m[3])
		switch {
		case name == "":
			name, dir, n, first = m[1], filepath.Dir(p), kn, p
		case m[1] != name || filepath.Dir(p) != dir:
			return "", "", nil, fmt.Errorf("%s is not a shard of %s", p, filepath.Join(dir, name))
		case kn != n:
			return "", "", nil, fmt.Errorf("%s is one of %d shards, %s one of %d", p, kn, first, n)
		}
		if prev, ok := byShard[k]; ok {
			return "", "", nil, fmt.Errorf("shard %d of %d is named twice: %s and %s", k, n, prev, p)
		}
		byShard[k] = p
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if _, ok := byShard[k]; !ok {
			missing = append(missing, filepath.Join(dir, fmt.Sprintf("%s.shard-%d-of-%d.txt", name, k, n)))
		}
		files = append(files, byShard[k])
	}
	if missing != nil {
		return "", "", nil, fmt.Errorf("%d of the %d shards of %s missing: %s", len(missing), n, filepath.Join(dir, name), strings.Join(missing, ", "))
	}
	return name, dir, files, nil
}

// joinShards reads the shards' runs, files in shard order, and returns
// their contents one after the other, each ended by a newline, with the
// commit their headers share ("" where they name different ones). It
// refuses a file that is not a run or holds no result, and a case in two
// of them.
func joinShards(files []string) (body []byte, commit string, err error) {
	owner := map[string]string{} // case name -> the shard file that holds it
	commits := map[string]bool{} // the commits the shards' headers name
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, "", err
		}
		r, err := results.ReadRun(bytes.NewReader(data), p)
		if err != nil {
			return nil, "", err
		}
		if len(r.Samples) == 0 {
			return nil, "", fmt.Errorf("%s holds no benchmark result", p)
		}
		for _, s := range r.Samples {
			c := caseKey(s)
			if prev, ok := owner[c]; ok {
				return nil, "", fmt.Errorf("case %s is in %s and in %s", c, prev, p)
			}
			owner[c] = p
		}
		commits[r.Commit()] = true
		body = append(body, data...)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			body = append(body, '\n')
		}
	}
	// The merged run's header names the shards' commit where they share
	// one, so that the report dates the run as it dates any other.
	if len(commits) == 1 {
		for c := range commits {
			commit = c
		}
	}
	return body, commit, nil
}

// writeMerged writes data to the new file out, and removes it again
// where the write fails; a file already at out is an error.
func writeMerged(out string, data []byte) error {
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		f.Close()
	} else {
		err = f.Close()
	}
	if err != nil {
		os.Remove(out)
	}
	return err
}

// caseKey names a sample's case by its name's keys, in order.
func caseKey(s *results.Sample) string {
	keys := slices.Sorted(maps.Keys(s.Keys))
	for i, k := range keys {
		keys[i] = k + "=" + s.Keys[k]
	}
	return strings.Join(keys, "/")
}
