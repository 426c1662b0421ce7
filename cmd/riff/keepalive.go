package main

import (
	"time"
)

// keepAliveEnv names the env var that sets the time between two
// keep-alives of a relay: a Go duration, for example 200ms. The minute of
// door.Every is the default, 10 s in a worker.
const keepAliveEnv = "RIFF_KEEPALIVE_EVERY"

// keepAliveInterval gives the time between two keep-alives: the env var
// when it is set, else def. A value that is no positive duration is
// refused with a text that names it.
func keepAliveInterval(getenv func(string) string, def time.Duration) (time.Duration, error) {
	v := getenv(keepAliveEnv)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, knownf("%s is a time such as 10s or 1m, not %q", keepAliveEnv, v)
	}
	return d, nil
}
