package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sanitizerVariants are the variants the sanitizer stages cover by
// default.
const sanitizerVariants = "^(gpu-|npp|cudnn|auto$|auto-bf16$)"

// sanitizerTools are compute-sanitizer's tools, in the stages' order.
var sanitizerTools = []string{"memcheck", "racecheck", "synccheck", "initcheck"}

// A sanLine is the summary of one compute-sanitizer run over the property
// suite, or of a tool's runs over every shard.
type sanLine struct {
	tool                string
	rc, errors          int
	missing             bool // a run printed no error summary (killed, crashed)
	api, pass, fail     int  // CUDA API errors; tests passed and failed
	secs                int
	wall, shards        int // a tool's summary: its first job's start to its last one's end, and its shards
	log                 string
	hazards, warnings   int // racecheck's
	hasHazards, hasLeak bool
	leaked              int64 // memcheck's bytes leaked
}

// errorCount is the errors as a line gives them: a count, or missing.
func (l sanLine) errorCount() string {
	if l.missing {
		return "missing"
	}
	return strconv.Itoa(l.errors)
}

// String is the line as the summaries print it.
func (l sanLine) String() string {
	s := fmt.Sprintf("%-9s rc=%d errors=%s api-errors=%d passed=%d failed=%d secs=%d", l.tool, l.rc, l.errorCount(), l.api, l.pass, l.fail, l.secs)
	if l.shards > 0 {
		s += fmt.Sprintf(" wall-s=%d shards=%d", l.wall, l.shards)
	}
	s += " log=" + l.log
	if l.hasHazards {
		s += fmt.Sprintf(" hazards=%d warnings=%d", l.hazards, l.warnings)
	}
	if l.hasLeak {
		s += fmt.Sprintf(" leaked-bytes=%d", l.leaked)
	}
	return s
}

// ok reports whether the tool exited 0 with no error and no failed test.
func (l sanLine) ok() bool { return l.rc == 0 && !l.missing && l.errors == 0 && l.fail == 0 }

// add sums a shard's line into a tool's, keeping the first exit status
// that is not 0.
func (l *sanLine) add(s sanLine) {
	if l.rc == 0 {
		l.rc = s.rc
	}
	l.missing, l.hasHazards, l.hasLeak = l.missing || s.missing, l.hasHazards || s.hasHazards, l.hasLeak || s.hasLeak
	l.errors, l.api, l.pass, l.fail, l.secs = l.errors+s.errors, l.api+s.api, l.pass+s.pass, l.fail+s.fail, l.secs+s.secs
	l.hazards, l.warnings, l.leaked = l.hazards+s.hazards, l.warnings+s.warnings, l.leaked+s.leaked
}

var (
	errorSummary     = regexp.MustCompile(`^========= ERROR SUMMARY: ([0-9]+) errors?$`)
	racecheckSummary = regexp.MustCompile(`^========= RACECHECK SUMMARY: ([0-9]+) hazards? displayed \(([0-9]+) errors?, ([0-9]+) warnings?\)`)
	leakSummary      = regexp.MustCompile(`^========= LEAK SUMMARY: ([0-9]+) bytes`)
	apiError         = regexp.MustCompile(`^========= Program hit .* on CUDA API call to `)
)

// readSanLine reads a tool's summaries from its log: the errors are the
// first ERROR SUMMARY's, else the RACECHECK SUMMARY's, else missing.
func readSanLine(tool string, o outcome) sanLine {
	l := sanLine{tool: tool, rc: o.rc, pass: o.pass, fail: o.fail, secs: o.secs, log: filepath.Base(o.log)}
	b, _ := os.ReadFile(o.log)
	errs, raceErrs := -1, -1
	for _, line := range strings.Split(string(b), "\n") {
		if m := errorSummary.FindStringSubmatch(line); m != nil && errs < 0 {
			errs, _ = strconv.Atoi(m[1])
		}
		if m := racecheckSummary.FindStringSubmatch(line); m != nil {
			l.hasHazards = true
			l.hazards, _ = strconv.Atoi(m[1])
			raceErrs, _ = strconv.Atoi(m[2])
			l.warnings, _ = strconv.Atoi(m[3])
		}
		if m := leakSummary.FindStringSubmatch(line); m != nil {
			l.hasLeak = true
			l.leaked, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if apiError.MatchString(line) {
			l.api++
		}
	}
	switch {
	case errs >= 0:
		l.errors = errs
	case raceErrs >= 0:
		l.errors = raceErrs
	default:
		l.missing = true
	}
	return l
}

// sanVerdict is a sanitizer summary's last line: ok, or NOT OK naming
// the tools that are not ok.
func sanVerdict(name string, lines []sanLine) string {
	if len(lines) == 0 {
		return name + " NOT OK: no tool ran"
	}
	var bad []string
	for _, l := range lines {
		if !l.ok() {
			bad = append(bad, fmt.Sprintf("%s (rc=%d errors=%s failed=%d)", l.tool, l.rc, l.errorCount(), l.fail))
		}
	}
	if len(bad) > 0 {
		return name + " NOT OK: " + strings.Join(bad, ", ")
	}
	return fmt.Sprintf("%s ok: %d tools, 0 errors", name, len(lines))
}

// A sanDone is one compute-sanitizer run: its line, when it ran, and its
// CUDA_VISIBLE_DEVICES.
type sanDone struct {
	line       sanLine
	start, end time.Time
	slot       string
}

// sanTool runs the short property suite of the variants re matches
// under a tool, on the GPUs devices names ("" all), logged in
// OUTDIR/NAME.log.
func (r *runner) sanTool(name, tool, re, devices string) sanDone {
	args := []string{"compute-sanitizer", "--tool", tool}
	if tool == "memcheck" {
		args = append(args, "--leak-check", "full")
	}
	args = append(args, "--error-exitcode", "3", r.binary("properties.test"), "-test.v", "-test.short", "-test.parallel", "1",
		"-test.timeout", r.setting("SAN_TIMEOUT", "10m"), "-props.variant="+re, "-props.n="+r.setting("SAN_N", "5"))
	var env []string
	if devices != "" {
		env = []string{"CUDA_VISIBLE_DEVICES=" + devices}
	}
	d := sanDone{start: time.Now(), slot: devices}
	d.line = readSanLine(tool, r.run(step{name: name, dir: "properties", args: args, env: env, quiet: true}))
	d.end = time.Now()
	return d
}

// sanOne runs sanTool on every GPU and notes its line, failing unless ok.
func (r *runner) sanOne(name, tool, re string) string {
	l := r.sanTool(name, tool, re, "").line
	r.note(name + ": " + l.String())
	if !l.ok() {
		r.fail()
	}
	return sanVerdict(name, []sanLine{l})
}

// memcheck is the memcheck stage.
func (r *runner) memcheck() string {
	san := []string{"compute-sanitizer", "--error-exitcode", "3", "--tool", "memcheck", "--leak-check", "full"}
	r.run(step{name: "memcheck-cudabind", dir: "cudabind", args: append(slices.Clone(san), r.binary("cudabind.test"), "-test.v", "-test.run", "GPU")})
	r.run(step{name: "memcheck-variants", dir: "gpu/variants", args: append(slices.Clone(san), r.binary("variants.test"), "-test.v", "-test.short")})
	return r.sanOne("memcheck-props", "memcheck", r.setting("SAN_VARIANT", sanitizerVariants))
}

// racecheck is the racecheck stage.
func (r *runner) racecheck() string {
	r.run(step{name: "racecheck-variants", dir: "gpu/variants", args: []string{"compute-sanitizer", "--error-exitcode", "3", "--tool", "racecheck",
		r.binary("variants.test"), "-test.v", "-test.short"}})
	re := r.setting("SAN_VARIANT", sanitizerVariants)
	r.sanOne("racecheck-props", "racecheck", re)
	return r.sanOne("synccheck-props", "synccheck", re)
}

// sanGPUs returns the GPUs of SAN_GPUS, else of nvidia-smi -L, and says
// from where.
func (r *runner) sanGPUs() (gpus []string, from string, err error) {
	v := r.getenv("SAN_GPUS")
	if v == "" {
		gpus = gpuIndices()
		return gpus, fmt.Sprintf("nvidia-smi -L lists %d", len(gpus)), nil
	}
	gpus = strings.Split(v, ",")
	for i, g := range gpus {
		if g == "" || strings.Trim(g, "0123456789") != "" {
			return nil, "", fmt.Errorf("SAN_GPUS=%s: %s is not a GPU index", v, g)
		}
		if slices.Contains(gpus[:i], g) {
			return nil, "", fmt.Errorf("SAN_GPUS=%s names a GPU twice", v)
		}
	}
	return gpus, fmt.Sprintf("SAN_GPUS=%s names %d", v, len(gpus)), nil
}

// listVariants returns the variants of the property suite that re
// selects (properties.test -props.list).
func (r *runner) listVariants(re string) ([]string, error) {
	args := []string{r.binary("properties.test"), "-props.list", "-props.variant=" + re}
	stdout, stderr, err := output(filepath.Join(r.root, "properties"), args...)
	names := strings.Fields(stdout)
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("%s exited %v, listing no variant: %s", commandLine("properties", nil, args), err, clip(stderr, 300))
	}
	return names, nil
}

// dealShards deals the variants round-robin into k shards, and returns
// each shard's -props.variant expression and its names.
func dealShards(variants []string, k int) (re []string, names [][]string) {
	names, quoted := make([][]string, k), make([][]string, k)
	for i, v := range variants {
		names[i%k] = append(names[i%k], v)
		quoted[i%k] = append(quoted[i%k], regexp.QuoteMeta(v))
	}
	for _, q := range quoted {
		re = append(re, "^("+strings.Join(q, "|")+")$")
	}
	return re, names
}

// gpuSanitizers is the sanitizers stage, one GPU a slot.
func (r *runner) gpuSanitizers() string {
	return r.sanitizers("sanitizers", r.setting("SAN_VARIANT", sanitizerVariants), 1)
}

// slabSanitizers is the sanitizers-slabs stage, two GPUs a slot.
func (r *runner) slabSanitizers() string {
	return r.sanitizers("sanitizers-slabs", r.setting("SAN_SLAB_VARIANT", "^gpu-(slab|stream)"), 2)
}

// sanitizers runs each tool over each of SAN_SHARDS shards of the
// variants re selects (sanJobs), and writes OUTDIR/NAME-shards.txt and
// OUTDIR/NAME-summary.txt, whose lines it notes.
func (r *runner) sanitizers(name, re string, per int) string {
	tools, slots, err := r.sanSlots(per)
	if err != nil {
		return r.refuse(name, err.Error())
	}
	variants, err := r.listVariants(re)
	if err != nil {
		return r.refuse(name, err.Error())
	}
	k := len(slots)
	if v := r.getenv("SAN_SHARDS"); v != "" {
		if k, err = strconv.Atoi(v); err != nil || k < 1 {
			return r.refuse(name, fmt.Sprintf("SAN_SHARDS=%s: want a count of shards, 1 or more", v))
		}
	}
	k = min(k, len(variants))
	shardRE, shardNames := dealShards(variants, k)
	shardLines, toolLines := sanShardLines(name, tools, shardNames, r.sanJobs(name, tools, shardRE, slots))
	r.writeFile(name+"-shards.txt", append([]string{r.header() + "; " + name + ": a line a job, a tool over a shard of the variants: its summary, the shard, its CUDA_VISIBLE_DEVICES and its variants"}, shardLines...))
	verdict := sanVerdict(name, toolLines)
	summary := []string{fmt.Sprintf("%s; %s: compute-sanitizer over the property suite of %s (-props.n=%s): %d variants in %d shards a tool, one process at a time on each of CUDA_VISIBLE_DEVICES=%s",
		r.header(), name, re, r.setting("SAN_N", "5"), len(variants), k, strings.Join(slots, " "))}
	var noted []string
	for _, l := range toolLines {
		summary = append(summary, l.String())
		noted = append(noted, name+": "+l.String())
	}
	r.summarize(name+"-summary.txt", append(summary, verdict), append(noted, verdict), strings.HasPrefix(verdict, name+" NOT OK"))
	return verdict
}

// sanSlots returns the tools of SAN_TOOLS and the slots of per GPUs the
// jobs run in, or why there are none.
func (r *runner) sanSlots(per int) (tools, slots []string, err error) {
	tools = r.fields("SAN_TOOLS", strings.Join(sanitizerTools, " "))
	if len(tools) == 0 {
		return nil, nil, fmt.Errorf("SAN_TOOLS names no tool")
	}
	for _, t := range tools {
		if !slices.Contains(sanitizerTools, t) {
			return nil, nil, fmt.Errorf("SAN_TOOLS names %s: want memcheck, racecheck, synccheck or initcheck", t)
		}
	}
	gpus, from, err := r.sanGPUs()
	switch {
	case err != nil:
		return nil, nil, err
	case len(gpus) < per && per == 1:
		return nil, nil, fmt.Errorf("needs a GPU, %s: not run", from)
	case len(gpus) < per:
		return nil, nil, fmt.Errorf("needs %d GPUs or more, %s: not run", per, from)
	}
	for i := 0; i+per <= len(gpus); i += per {
		slots = append(slots, strings.Join(gpus[i:i+per], ","))
	}
	return tools, slots, nil
}

// sanJobs runs each tool over each shard, one job at a time a slot, and
// returns the runs by tool and shard.
func (r *runner) sanJobs(name string, tools, shardRE, slots []string) [][]sanDone {
	done := make([][]sanDone, len(tools))
	jobs := make(chan [2]int, len(tools)*len(shardRE))
	for t := range tools {
		done[t] = make([]sanDone, len(shardRE))
		for s := range shardRE {
			jobs <- [2]int{t, s}
		}
	}
	close(jobs)
	var wg sync.WaitGroup
	for _, slot := range slots {
		wg.Go(func() {
			for j := range jobs {
				t, s := j[0], j[1]
				done[t][s] = r.sanTool(fmt.Sprintf("%s-%s-shard%d", name, tools[t], s), tools[t], shardRE[s], slot)
			}
		})
	}
	wg.Wait()
	return done
}

// sanShardLines returns a line a job and a line a tool that sums its
// shards'.
func sanShardLines(name string, tools []string, shardNames [][]string, done [][]sanDone) (shardLines []string, toolLines []sanLine) {
	for t, tool := range tools {
		m := sanLine{tool: tool, shards: len(shardNames), log: fmt.Sprintf("%s-%s-shard*.log", name, tool)}
		for s, d := range done[t] {
			m.add(d.line)
			shardLines = append(shardLines, fmt.Sprintf("%s shard=%d cuda-visible-devices=%s variants=%s", d.line, s, d.slot, strings.Join(shardNames[s], ",")))
		}
		first := slices.MinFunc(done[t], func(a, b sanDone) int { return a.start.Compare(b.start) }).start
		last := slices.MaxFunc(done[t], func(a, b sanDone) int { return a.end.Compare(b.end) }).end
		m.wall = int(last.Sub(first).Seconds())
		toolLines = append(toolLines, m)
	}
	return shardLines, toolLines
}
