package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Rerun submits again the tasks whose current attempt failed or was never
// submitted, after moving their files into attempt-K/ of the task's
// directory, and returns those tasks.
func (j *Job) Rerun() ([]*Task, error) {
	statuses, err := j.Status()
	if err != nil {
		return nil, err
	}
	var failed []*Task
	for _, s := range statuses {
		if s.State != Failed {
			continue
		}
		if err := j.archive(s.Task); err != nil {
			return nil, fmt.Errorf("fleet: keeping task %d's failed attempt: %w", s.Task.Index, err)
		}
		failed = append(failed, s.Task)
	}
	return failed, j.submit(failed)
}

// Gathered is what Gather merged.
type Gathered struct {
	Files   []string     // sweep runs under the data directory, or test logs under the logs directory
	Left    []TaskStatus // tasks not done, whose runs were left out
	Summary []string     // tests: each task's tests-summary.txt as gathered
}

// A Clash is a gathered file that would overwrite another.
type Clash struct {
	Src, Dst string // the task's file and the file already there, or the other task's file
}

func (c Clash) String() string { return c.Src + " clashes with " + c.Dst }

// ClashError is the error of a gather that found clashes.
type ClashError struct{ Clashes []Clash }

func (e *ClashError) Error() string {
	lines := make([]string, len(e.Clashes))
	for i, c := range e.Clashes {
		lines[i] = c.String()
	}
	return fmt.Sprintf("fleet: %d gathered files would overwrite others; nothing gathered:\n  %s",
		len(e.Clashes), strings.Join(lines, "\n  "))
}

// Gather merges the runs of the job's done tasks: a sweep's files go to
// dataDir/SLUG/, the tests run's directory to logsDir/SLUG/JOBNAME/. A
// file already there with other contents, or two tasks' files for one
// place, is a *ClashError, and then nothing is copied; a file already
// there with the same contents is kept. Tasks not done are listed in Left.
func (j *Job) Gather(dataDir, logsDir string) (*Gathered, error) {
	statuses, err := j.Status()
	if err != nil {
		return nil, err
	}
	g := new(Gathered)
	var plan []Clash // Src to copy to Dst
	for _, s := range statuses {
		if s.State != Done {
			g.Left = append(g.Left, s)
			continue
		}
		var moves []Clash
		switch j.Mode {
		case ModeSweep:
			moves, err = sweepFiles(TaskDir(j.Dir, s.Task.Index), dataDir)
		case ModeTests:
			if s.Slug == "" {
				return nil, fmt.Errorf("fleet: task %d is done but its record names no slug", s.Task.Index)
			}
			moves, err = treeFiles(filepath.Join(TaskDir(j.Dir, s.Task.Index), "tests"), filepath.Join(logsDir, s.Slug, j.Name))
		}
		if err != nil {
			return nil, err
		}
		plan = append(plan, moves...)
	}
	todo, err := checkClashes(plan)
	if err != nil {
		return nil, err
	}
	for _, m := range todo {
		if err := os.MkdirAll(filepath.Dir(m.Dst), 0o755); err != nil {
			return nil, err
		}
		if err := copyFile(m.Src, m.Dst); err != nil {
			return nil, fmt.Errorf("fleet: gathering %s: %w", m.Src, err)
		}
	}
	for _, m := range plan {
		g.Files = append(g.Files, m.Dst)
		if filepath.Base(m.Dst) == "tests-summary.txt" {
			g.Summary = append(g.Summary, m.Dst)
		}
	}
	sort.Strings(g.Files)
	return g, nil
}

// sweepFiles plans the copies of taskDir/data/SLUG/*.txt to dataDir/SLUG/.
func sweepFiles(taskDir, dataDir string) ([]Clash, error) {
	matches, err := filepath.Glob(filepath.Join(taskDir, "data", "*", "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("fleet: %s is done but holds no run (data/SLUG/*.txt)", taskDir)
	}
	moves := make([]Clash, len(matches))
	for i, m := range matches {
		slug := filepath.Base(filepath.Dir(m))
		moves[i] = Clash{Src: m, Dst: filepath.Join(dataDir, slug, filepath.Base(m))}
	}
	return moves, nil
}

// treeFiles plans the copies of every file under src to the same place
// under dst.
func treeFiles(src, dst string) ([]Clash, error) {
	var moves []Clash
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		moves = append(moves, Clash{Src: path, Dst: filepath.Join(dst, rel)})
		return nil
	})
	return moves, err
}

// checkClashes returns the planned copies whose destination does not
// exist yet, or a *ClashError when two copies go to one place or one would
// replace a file with other contents.
func checkClashes(plan []Clash) ([]Clash, error) {
	var todo, clashes []Clash
	from := map[string]string{} // destination -> the source planned for it
	for _, m := range plan {
		if other, ok := from[m.Dst]; ok {
			clashes = append(clashes, Clash{Src: m.Src, Dst: other})
			continue
		}
		from[m.Dst] = m.Src
		same, err := sameContents(m.Src, m.Dst)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			todo = append(todo, m)
		case err != nil:
			return nil, err
		case !same:
			clashes = append(clashes, m)
		}
	}
	if len(clashes) > 0 {
		return nil, &ClashError{Clashes: clashes}
	}
	return todo, nil
}

// sameContents reports whether the files a and b hold the same bytes.
func sameContents(a, b string) (bool, error) {
	bb, err := os.ReadFile(b)
	if err != nil {
		return false, err
	}
	ab, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ab, bb), nil
}
