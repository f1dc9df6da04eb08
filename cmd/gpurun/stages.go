package main

import (
	"archive/tar"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// verdict is a stage's note from one step: its exit status.
func verdict(o outcome) string {
	if o.rc == 0 {
		return "exit 0"
	}
	return fmt.Sprintf("exit %d, see %s", o.rc, filepath.Base(o.log))
}

// props is the props stage: the property suite over PROPS_VARIANT's
// variants.
func (r *runner) props() string {
	args := append([]string{r.binary("properties.test"), "-test.v", "-test.timeout", "9m",
		"-props.variant=" + r.setting("PROPS_VARIANT", "^(gpu-|npp|cudnn)"),
		"-props.n=" + r.setting("PROPS_N", "30"), "-props.time=" + r.setting("PROPS_TIME", "0")}, r.optional("PROPS_SEED", "-props.seed=")...)
	return verdict(r.run(step{name: "props-gpu", dir: "properties", args: args}))
}

// tune is the tune stage: the tuner, its table written to OUTDIR/tuning/
// over a copy of the committed tables.
func (r *runner) tune() string {
	dir := r.outPath("tuning")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r.refuse("tune", err.Error())
	}
	tables, _ := filepath.Glob(filepath.Join(r.root, "tables", "tuning", "*.json"))
	for _, t := range tables {
		b, err := os.ReadFile(t)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(t)), b, 0o644)
		}
		if err != nil {
			return r.refuse("tune", err.Error())
		}
	}
	return verdict(r.run(step{name: "tune", args: []string{r.binary("tune"),
		"-variants", r.setting("TUNE_VARIANTS", "gpu-regtile,gpu-tiled,gpu-sepfused"),
		"-k", r.setting("TUNE_K", "3,5,7,11,21"), "-sizes", r.setting("TUNE_SIZES", "large"),
		"-time", r.setting("TUNE_TIME", "165s"), "-budget", r.setting("TUNE_BUDGET", "24"),
		"-case-timeout", r.setting("TUNE_CASE_TIMEOUT", "2m"), "-commit", r.commit, "-out", dir}}))
}

// tuneProps is the tune-props stage: the property suite on every setting
// of OUTDIR/tuning/ (else the embedded table), and a short real tuning.
func (r *runner) tuneProps() string {
	var env []string
	if st, err := os.Stat(r.outPath("tuning")); err == nil && st.IsDir() {
		env = []string{"CONVBENCH_TUNING=" + r.outPath("tuning")}
	}
	return verdict(r.run(step{name: "tune-props", dir: "tune", env: env, args: []string{r.binary("tune.test"),
		"-test.v", "-test.timeout", "9m", "-test.run", "TestTunedProperties|TestTuneGPU", "-tune.props",
		"-convtest.time=0", "-convtest.n=" + r.setting("PROPS_N", "60")}}))
}

// gallery is the gallery stage: the filter gallery rendered by this GPU's
// fastest variants, packed as gallery/ in OUTDIR/gallery.tar.
func (r *runner) gallery() string {
	tmp, err := os.MkdirTemp("", "gpurun-gallery-")
	if err != nil {
		return r.refuse("gallery", err.Error())
	}
	defer os.RemoveAll(tmp)
	o := r.run(step{name: "gallery", args: []string{r.binary("gallery"), "-data", filepath.Join(r.root, "results", "data"), "-out", filepath.Join(tmp, "gallery")}})
	if err := tarFolder(r.outPath("gallery.tar"), tmp); err != nil {
		return r.refuse("gallery", err.Error())
	}
	return verdict(o)
}

// tarFolder writes what dir holds to the tar archive path.
func tarFolder(path, dir string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	return errors.Join(tw.AddFS(os.DirFS(dir)), tw.Close(), f.Close())
}

// sweepArgs are the sweep command into OUTDIR/data with -count COUNT
// (default count), -noise=NOISE and -max-time=MAX_TIME.
func (r *runner) sweepArgs(count string) []string {
	return append(r.sweep("-data", r.outPath("data"), "-count", r.setting("COUNT", count)), r.optional("NOISE", "-noise=", "MAX_TIME", "-max-time=")...)
}

// sweepStage is the sweep:NAME stage: the sweep with SWEEP_ARGS.
func (r *runner) sweepStage(name string) string {
	return verdict(r.run(step{name: "sweep-" + name, args: append(r.sweepArgs("5"), r.fields("SWEEP_ARGS", "")...)}))
}

// bench is the bench:PRESET stage: the benchmark binary over a preset.
func (r *runner) bench(preset string) string {
	args := []string{r.binary("benchmarks.test"), "-test.run", "^$", "-test.bench", ".", "-test.cpu", "1",
		"-test.count", r.setting("COUNT", "5"), "-test.benchtime", "1x", "-test.timeout", "0", "-sweep=" + preset}
	args = append(args, r.optional("CPU_CAP", "-cpu-cap=", "NOISE", "-noise=", "MAX_TIME", "-max-time=")...)
	return verdict(r.run(step{name: "bench-" + preset, dir: "benchmarks", args: args}))
}

// kernel is the kernel:FILE stage: a user kernel proved and timed by the
// sweep.
func (r *runner) kernel(file string) string {
	args := r.sweep("-kernel", filepath.Join(r.root, file), "-variants", r.setting("KERNEL_VARIANTS", "user-.*|gpu-naive|gpu-tiled"))
	args = append(args, r.fields("KERNEL_AXES", "-sizes 2048x2048 -filters gauss5,dense9 -types u8,f32")...)
	args = append(args, "-count", r.setting("COUNT", "3"), "-data", r.outPath("data"))
	return verdict(r.run(step{name: "kernel-" + strings.TrimSuffix(filepath.Base(file), ".cu"), args: args}))
}

// crossover is the crossover stage: the paths alone and their table in
// OUTDIR/crossover/ (unless CROSS_TABLE=embedded), then the whole preset.
func (r *runner) crossover() string {
	var env []string
	if r.getenv("CROSS_TABLE") != "embedded" {
		paths := r.outPath("crossover-paths")
		r.run(step{name: "crossover-paths", args: r.sweep("-data", paths,
			"-count", "1", "-max-time="+r.setting("CROSS_PATHS_TIME", "0.1s"), "-sweep=crossover",
			"-variants", r.setting("CROSS_PATHS", "gpu-regtile|gpu-tiled|gpu-sepfused|gpu-separable|gpu-fft|gpu-tc-.*"))})
		runs, _ := filepath.Glob(filepath.Join(paths, "*", "crossover*.txt"))
		r.run(step{name: "crossover-table", args: append([]string{r.binary("crossover"), "-out", r.outPath("crossover")}, runs...)})
		env = []string{"CONVBENCH_CROSSOVER=" + r.outPath("crossover")}
	}
	return verdict(r.run(step{name: "sweep-crossover", env: env, args: append(r.sweepArgs("2"), "-sweep=crossover")}))
}

// shards is the shards:PRESET stage: the sweep over a preset on every GPU
// at once (the sweep's -devices).
func (r *runner) shards(preset string) string {
	name := "shards-" + preset
	if r.getenv("SHARDS") != "" || r.getenv("SHARD_FIRST") != "" {
		return r.refuse(name, "SHARDS and SHARD_FIRST are not read: this stage runs one shard on each GPU of this host (sweep -devices); to split a preset over hosts, run .gpu/sweep -shard K/N on each and join the runs with sweep -merge; not run")
	}
	gpus := strings.Split(r.getenv("SHARD_GPUS"), ",")
	if r.getenv("SHARD_GPUS") == "" {
		gpus = gpuIndices()
	}
	if len(gpus) == 0 {
		return r.refuse(name, "needs a GPU: SHARD_GPUS is empty and nvidia-smi -L lists none; not run")
	}
	return verdict(r.run(step{name: name, args: append(r.sweepArgs("5"), "-sweep="+preset, "-devices", strings.Join(gpus, ","))}))
}

// ncu is the ncu:NAME stage: Nsight Compute over the benchmark cases
// NCU_BENCH names, its CSV in OUTDIR/ncu-NAME.csv (ncuSummary).
func (r *runner) ncu(label string) string {
	name := "ncu-" + label
	if r.getenv("NCU_BENCH") == "" {
		return r.refuse(name, "NCU_BENCH is empty: set it to a -test.bench regex naming the cases to profile, such as 'BenchmarkConv/variant=gpu-regtile/size=4096x4096/filter=dense11/'; not run")
	}
	if _, err := exec.LookPath("ncu"); err != nil {
		return r.refuse(name, "ncu is not on PATH; not run")
	}
	args := []string{"ncu", "--clock-control", "none", "--section", "SpeedOfLight", "--csv", "--page", "details",
		"--launch-skip", r.setting("NCU_SKIP", "2"), "--launch-count", r.setting("NCU_COUNT", "3")}
	if k := r.getenv("NCU_KERNEL"); k != "" {
		args = append(args, "-k", "regex:"+k)
	}
	for _, s := range r.fields("NCU_SECTIONS", "") {
		args = append(args, "--section", s)
	}
	if m := r.getenv("NCU_METRICS"); m != "" {
		args = append(args, "--metrics", m)
	}
	args = append(args, r.binary("benchmarks.test"), "-test.run", "^$", "-test.bench", r.getenv("NCU_BENCH"),
		"-test.benchtime", "1x", "-test.count", "1", "-test.cpu", "1", "-test.timeout", "0",
		"-max-time="+r.setting("NCU_MAX_TIME", "20ms"))
	args = append(args, r.fields("NCU_ARGS", "")...)
	r.run(step{name: name, dir: "benchmarks", args: args, log: r.outPath(name + ".csv")})
	return r.ncuSummary(name)
}

// ncuSummary writes OUTDIR/NAME.md, ncusum's table of OUTDIR/NAME.csv,
// and notes "NAME ok: K kernels, L launches profiled; table in NAME.md"
// or refuses.
func (r *runner) ncuSummary(name string) string {
	if _, err := os.Stat(r.binary("ncusum")); err != nil {
		return r.refuse(name, fmt.Sprintf("no %s (make gpu-bins builds it); ncu's CSV is in %s.csv", r.binary("ncusum"), name))
	}
	md, stderr, err := output(r.out, r.binary("ncusum"), name+".csv")
	if err != nil {
		return r.refuse(name, cmp.Or(strings.Join(strings.Fields(clip(stderr, 600)), " "), err.Error()))
	}
	if err := os.WriteFile(r.outPath(name+".md"), []byte(md), 0o644); err != nil {
		return r.refuse(name, err.Error())
	}
	tsv, _, err := output(r.out, r.binary("ncusum"), "-tsv", name+".csv")
	if err != nil {
		r.refuse(name, "ncusum -tsv: "+err.Error())
		return err.Error()
	}
	kernels, launches := 0, 0
	for i, l := range strings.Split(strings.TrimRight(tsv, "\n"), "\n") {
		f := strings.Split(l, "\t")
		if i == 0 || len(f) < 4 {
			continue
		}
		n, _ := strconv.Atoi(f[3])
		kernels, launches = kernels+1, launches+n
	}
	line := fmt.Sprintf("%s ok: %d kernels, %d launches profiled; table in %s.md", name, kernels, launches, name)
	r.note(line)
	return line
}
