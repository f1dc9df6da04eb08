// Package slurmtest starts a real Slurm cluster on this host for tests.
//
// It runs munged, slurmctld and one slurmd a node name (each on its own
// port of this host) as the current user from the Debian packages
// (slurm-wlm, munge), with all their files under a temporary directory,
// and stops them when the test ends. Start sets SLURM_CONF for the test.
package slurmtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Cluster is a running test cluster.
type Cluster struct {
	Dir   string   // configuration, state, spool and logs
	Conf  string   // slurm.conf
	Nodes []string // node names, each with one CPU
	procs []*exec.Cmd
}

// Partitions of every cluster: "cpu" (the default) holds every node,
// "gpu" the last one, which has no GPU: a task that needs one fails there.
const (
	CPUPartition = "cpu"
	GPUPartition = "gpu"
)

// daemons are the programs a cluster needs, and the clients the tests call.
var daemons = []string{"slurmctld", "slurmd", "munged", "mungekey", "sbatch", "squeue", "scontrol", "sinfo"}

// find returns the path of the program name, looked up in PATH and then
// in the system directories, where Debian puts the daemons.
func find(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin", "/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found: apt-get install slurm-wlm munge", name)
}

// Start starts a cluster of the named nodes, or skips the test when the
// packages are not installed. It fails the test when the cluster does
// not come up, with the daemons' logs.
func Start(t testing.TB, nodes ...string) *Cluster {
	t.Helper()
	paths := map[string]string{}
	for _, d := range daemons {
		p, err := find(d)
		if err != nil {
			t.Skip(err)
		}
		paths[d] = p
	}
	// A short directory: munged's socket path must fit a sockaddr_un.
	dir, err := os.MkdirTemp("", "slurm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Nodes: nodes}
	t.Cleanup(c.stop)
	for _, d := range []string{"state", "log", "spool"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(dir, "munge.key")
	if out, err := exec.Command(paths["mungekey"], "-c", "-f", "-b", "1024", "-k", key).CombinedOutput(); err != nil {
		t.Fatalf("mungekey: %v: %s", err, out)
	}
	socket := filepath.Join(dir, "munge.sock")
	c.start(t, paths["munged"], "munged", "-F", "-f", "--socket="+socket, "--key-file="+key,
		"--pid-file="+filepath.Join(dir, "munged.pid"), "--seed-file="+filepath.Join(dir, "munged.seed"),
		"--log-file="+filepath.Join(dir, "log", "munged.log"))
	waitFor(t, c, "munged's socket", func() bool { _, err := os.Stat(socket); return err == nil })

	conf, err := config(dir, socket, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLURM_CONF", c.Conf)
	c.start(t, paths["slurmctld"], "slurmctld", "-D", "-i", "-f", c.Conf)
	for _, n := range nodes {
		if err := os.Mkdir(filepath.Join(dir, "spool", n), 0o700); err != nil {
			t.Fatal(err)
		}
		c.start(t, paths["slurmd"], "slurmd-"+n, "-D", "-N", n, "-f", c.Conf)
	}
	waitFor(t, c, "every node idle", func() bool {
		out, err := exec.Command(paths["sinfo"], "-h", "-N", "-p", CPUPartition, "-o", "%N %T").Output()
		return err == nil && strings.Count(string(out), " idle") == len(nodes)
	})
	return c
}

// config is the slurm.conf of a cluster in dir, every node's slurmd on
// its own free port of localhost.
func config(dir, socket string, nodes []string) (string, error) {
	u, err := user.Current()
	if err != nil {
		return "", err
	}
	ports, err := freePorts(2 + len(nodes))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `ClusterName=fleettest
SlurmctldHost=localhost
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=%s
SlurmdUser=%s
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%s
StateSaveLocation=%s/state
SlurmdSpoolDir=%s/spool/%%n
SlurmctldPidFile=%s/slurmctld.pid
SlurmdPidFile=%s/slurmd-%%n.pid
SlurmctldLogFile=%s/log/slurmctld.log
SlurmdLogFile=%s/log/slurmd-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=30
KillWait=2
`, ports[0], ports[1], u.Username, u.Username, socket, dir, dir, dir, dir, dir, dir)
	for i, n := range nodes {
		fmt.Fprintf(&b, "NodeName=%s NodeHostname=localhost NodeAddr=127.0.0.1 Port=%d CPUs=1 RealMemory=1000 State=UNKNOWN\n", n, ports[2+i])
	}
	fmt.Fprintf(&b, "PartitionName=%s Nodes=%s Default=YES MaxTime=INFINITE State=UP\n", CPUPartition, strings.Join(nodes, ","))
	fmt.Fprintf(&b, "PartitionName=%s Nodes=%s MaxTime=INFINITE State=UP\n", GPUPartition, nodes[len(nodes)-1])
	return b.String(), nil
}

// freePorts returns n TCP ports free on the loopback interface now.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// start starts a daemon in the foreground, its output to log/NAME.out.
func (c *Cluster) start(t testing.TB, path, name string, args ...string) {
	t.Helper()
	out, err := os.Create(filepath.Join(c.Dir, "log", name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	out.Close()
	c.procs = append(c.procs, cmd)
}

// stop stops the daemons, last started first: SIGTERM, then SIGKILL
// after five seconds.
func (c *Cluster) stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			p.Process.Kill()
			<-done
		}
	}
}

// waitFor waits up to 30 seconds for ok, failing the test with the
// daemons' logs when it does not come.
func waitFor(t testing.TB, c *Cluster, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("slurmtest: no %s after 30s; logs:\n%s", what, c.Logs())
}

// Logs returns the end of every daemon's log, for a failing test.
func (c *Cluster) Logs() string {
	files, _ := filepath.Glob(filepath.Join(c.Dir, "log", "*"))
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		fmt.Fprintf(&b, "== %s\n%s\n", f, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
	return b.String()
}
