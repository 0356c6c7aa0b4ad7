package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// procMemory is a process's resident memory as /proc/PID/status counts it: its own (anonymous)
// memory, and the file-mapped pages (index and table files, which are page cache the kernel
// reclaims).
type procMemory struct{ Anon, File int64 }

func readProcMemory(pid int) (procMemory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procMemory{}, err
	}
	defer f.Close()
	var m procMemory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "RssAnon:":
			m.Anon = kb << 10
		case "RssFile:":
			m.File = kb << 10
		}
	}
	return m, nil
}

// procCPU is the CPU time a process has used, user and system.
func procCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: the fields that follow it start after its ')'.
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 13 {
		return 0, errors.New("short /proc stat")
	}
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond, nil // USER_HZ is 100 on Linux
}

// procWrites is how many bytes a process has caused to be written to storage (/proc/PID/io
// write_bytes: its files' pages as the kernel writes them back, compactions included).
func procWrites(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes:"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("no write_bytes in /proc io")
}

// rssSampler samples a process's memory every 100 ms and keeps the peak since it was last reset.
type rssSampler struct {
	pid  int
	mu   sync.Mutex
	peak procMemory
	last procMemory
	stop chan struct{}
	done chan struct{}
}

func sampleRSS(pid int) *rssSampler {
	s := &rssSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) sample() {
	m, err := readProcMemory(s.pid)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = m
	s.peak.Anon = max(s.peak.Anon, m.Anon)
	s.peak.File = max(s.peak.File, m.File)
}

// Peak is the highest memory sampled since the last reset.
func (s *rssSampler) Peak() procMemory {
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// Now is the memory as sampled now.
func (s *rssSampler) Now() procMemory {
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *rssSampler) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peak = procMemory{}
}

func (s *rssSampler) Stop() {
	close(s.stop)
	<-s.done
}

// serverProc is `totalrecall serve` run as a process of its own, so that what it holds is its own.
type serverProc struct {
	cmd    *exec.Cmd
	addr   string
	rss    *rssSampler
	log    *os.File
	exited chan struct{}
	err    error // the wait's, once exited
	// ready is how long it took from the start of the process to /healthz answering 200.
	ready time.Duration
}

// freeAddr is a loopback address no one listens on.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startServeProc starts serve on dir with the memory limit and extra flags, and waits until it
// is ready. Its standard error is appended to logPath.
func startServeProc(dir, limit, logPath string, extra ...string) (*serverProc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	return startServeAt(addr, logPath, append([]string{"--store", "file://" + dir, "--memory-limit", limit}, extra...)...)
}

// startServeAt starts serve on addr with flags, and waits until it is ready.
func startServeAt(addr, logPath string, flags ...string) (*serverProc, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--addr", addr}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = lf, lf
	// GOGC and GOMEMLIMIT of the bench's own environment are not the server's.
	cmd.Env = slicesWithout(os.Environ(), "GOGC=", "GOMEMLIMIT=")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, err
	}
	p := &serverProc{cmd: cmd, addr: addr, log: lf, exited: make(chan struct{})}
	p.rss = sampleRSS(cmd.Process.Pid)
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	hc := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-p.exited:
			p.rss.Stop()
			lf.Close()
			return nil, fmt.Errorf("serve exited before it was ready: %v (see %s)", p.err, logPath)
		default:
		}
		if resp, err := hc.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				p.ready = time.Since(start)
				return p, nil
			}
		}
		if time.Since(start) > 30*time.Minute {
			p.kill()
			return nil, errors.New("serve was not ready after 30 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the server as a user would (SIGTERM) and reports whether it exited cleanly.
func (p *serverProc) stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(2 * time.Minute):
		p.kill()
		return errors.New("serve did not stop within 2 minutes of SIGTERM; killed")
	}
	p.rss.Stop()
	p.log.Close()
	return p.err
}

func (p *serverProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
	p.rss.Stop()
	p.log.Close()
}

// alive reports an error when the server has exited (it was killed, or failed).
func (p *serverProc) alive() error {
	select {
	case <-p.exited:
		return fmt.Errorf("serve exited: %v", p.err)
	default:
		return nil
	}
}

// waitIdle waits until the process has used under a fifth of a core over two seconds (its
// consumers, merges and compactions have caught up), at most limit.
func waitProcIdle(pid int, limit time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < limit {
		c0, err := procCPU(pid)
		if err != nil {
			break
		}
		time.Sleep(2 * time.Second)
		c1, err := procCPU(pid)
		if err != nil || c1-c0 < 400*time.Millisecond {
			break
		}
	}
	return time.Since(start)
}

// warmTook is the duration of the last read cache warm-up the server logged.
func warmTook(logPath string) string {
	raw, err := os.ReadFile(logPath)
	if err != nil {
		return ""
	}
	lines := bytes.Split(raw, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		l := string(lines[i])
		if strings.Contains(l, "read cache warm") {
			if k := strings.Index(l, "took="); k >= 0 {
				return strings.Fields(l[k+5:])[0]
			}
		}
	}
	return ""
}

func slicesWithout(env []string, prefixes ...string) []string {
	var out []string
	for _, e := range env {
		drop := false
		for _, p := range prefixes {
			if strings.HasPrefix(e, p) {
				drop = true
			}
		}
		if !drop {
			out = append(out, e)
		}
	}
	return out
}
