package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"time"
)

// Other work on the machine (a build, a test run) disturbs a measurement.
// As bench/run.sh does, calibrate waits for other processes to go quiet
// before each measurement and repeats one during which they used more than
// quietCPUs. "Other" is every user process outside this one's session, found
// in /proc; where there is no /proc nothing is checked.
const (
	quietCPUs = 0.10
	quietWait = 30 * time.Second
	retries   = 2
)

// procTimes maps the pid of every other user process to its user+system
// time in clock ticks.
type procTimes map[int]uint64

// ticksPerSecond is USER_HZ, 100 on every Linux that matters.
const ticksPerSecond = 100

func snapshot() procTimes {
	self, ok := readStat("/proc/self/stat")
	if !ok {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	m := procTimes{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readStat("/proc/" + e.Name() + "/stat")
		if !ok || st.session == self.session || st.session == 0 || st.ppid == 2 {
			continue
		}
		m[pid] = st.ticks
	}
	return m
}

type procStat struct {
	ppid, session int
	ticks         uint64
}

func readStat(name string) (procStat, bool) {
	b, err := os.ReadFile(name)
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	// After the command: state ppid pgrp session tty tpgid flags minflt
	// cminflt majflt cmajflt utime stime.
	if len(f) < 13 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	session, _ := strconv.Atoi(string(f[3]))
	utime, _ := strconv.ParseUint(string(f[11]), 10, 64)
	stime, _ := strconv.ParseUint(string(f[12]), 10, 64)
	return procStat{ppid: ppid, session: session, ticks: utime + stime}, true
}

// others is the CPUs other processes used between two snapshots d apart.
// A process that appeared in between counts from zero.
func others(before, after procTimes, d time.Duration) float64 {
	if before == nil || after == nil || d <= 0 {
		return 0
	}
	var ticks uint64
	for pid, t := range after {
		if t >= before[pid] {
			ticks += t - before[pid]
		}
	}
	return float64(ticks) / ticksPerSecond / d.Seconds()
}

// waitQuiet returns once other processes use less than quietCPUs, after
// quietWait, or when ctx is done.
func waitQuiet(ctx context.Context) {
	deadline := time.Now().Add(quietWait)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		a := snapshot()
		if a == nil {
			return
		}
		time.Sleep(300 * time.Millisecond)
		if others(a, snapshot(), 300*time.Millisecond) < quietCPUs {
			return
		}
	}
}
