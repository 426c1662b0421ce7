package loadtool

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The peers of the side-by-side run (docs/performance.md, "riff beside
// PostgreSQL and etcd"): what a user would pick instead of riff-server
// for exclusive claims, each started as a throwaway server in a
// directory of its own on loopback, durable as it ships, and driven with
// the same exclusive claim and release of the key of each client.

// PostgresBin is where Debian's PostgreSQL 15 keeps its programs.
const PostgresBin = "/usr/lib/postgresql/15/bin"

// ErrPeerMissing says that a peer is not installed on this machine.
var ErrPeerMissing = errors.New("not installed")

// Postgres is a throwaway PostgreSQL cluster in a directory: initdb,
// then a postgres on a loopback port with synchronous commit and fsync
// on (the defaults, set anyway), and a table of claims whose primary
// key is the item.
type Postgres struct {
	Port int
	dir  string
	cred *syscall.Credential // the user postgres runs as, when this process is root
	bin  string
}

// StartPostgres makes and starts the cluster in dir (which must be empty
// or not exist). It gives ErrPeerMissing when PostgreSQL 15 is not
// installed. As root it runs the server as the user postgres (initdb
// refuses root), which must be able to reach dir (its parents must be
// open to others, as os.TempDir's are).
func StartPostgres(dir string) (*Postgres, error) {
	if _, err := os.Stat(filepath.Join(PostgresBin, "postgres")); err != nil {
		return nil, fmt.Errorf("PostgreSQL 15 (%s): %w", PostgresBin, ErrPeerMissing)
	}
	p := &Postgres{dir: dir, bin: PostgresBin}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, PostgreSQL needs the user postgres: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p.Port = port
	data := filepath.Join(dir, "data")
	if out, err := p.command("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=on -c synchronous_commit=on -c max_connections=200 -c shared_buffers=128MB", port, dir)
	if out, err := p.command("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
	if out, err := p.psql("CREATE TABLE claims (item text PRIMARY KEY, holder text NOT NULL)"); err != nil {
		_ = p.Stop()
		return nil, fmt.Errorf("psql: %v\n%s", err, out)
	}
	return p, nil
}

func (p *Postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.bin, name), args...)
	cmd.Dir = p.dir
	if p.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	}
	return cmd
}

func (p *Postgres) psql(sql string) ([]byte, error) {
	return p.command("psql", "-h", "127.0.0.1", "-p", strconv.Itoa(p.Port), "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-c", sql, "postgres").CombinedOutput()
}

// PostgresScript is the pgbench script of a claim and a release of the
// key of each client: each statement is a transaction of its own
// (autocommit), each commit flushed to the WAL before its reply.
const PostgresScript = `INSERT INTO claims (item, holder) VALUES ('item-' || :client_id, 'session-' || :client_id) ON CONFLICT DO NOTHING;
DELETE FROM claims WHERE item = 'item-' || :client_id;
`

// Load runs pgbench with clients connections for the duration, on 2
// threads, with prepared statements, and gives the commands (two a
// transaction of the script) per second. The latencies are those of a
// pair (pgbench times the script): P50Ms and P99Ms are of a pair, for
// the commands of one pair run one after the other.
func (p *Postgres) Load(clients int, d time.Duration) (Result, error) {
	script := filepath.Join(p.dir, "claim.sql")
	if err := os.WriteFile(script, []byte(PostgresScript), 0o644); err != nil {
		return Result{}, err
	}
	logDir, err := os.MkdirTemp(p.dir, "pgbench-log-")
	if err != nil {
		return Result{}, err
	}
	prefix := filepath.Join(logDir, "tx")
	cmd := exec.Command(filepath.Join(p.bin, "pgbench"), "-h", "127.0.0.1", "-p", strconv.Itoa(p.Port), "-U", "postgres",
		"-n", "-c", strconv.Itoa(clients), "-j", "2", "-M", "prepared", "-T", strconv.Itoa(int(d.Seconds())),
		"-f", script, "-l", "--log-prefix", prefix, "postgres")
	cmd.Dir = logDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Result{}, fmt.Errorf("pgbench: %v\n%s", err, out)
	}
	files, err := filepath.Glob(prefix + "*")
	if err != nil {
		return Result{}, err
	}
	var lat []time.Duration
	var first, last int64
	for _, f := range files {
		l, lo, hi, err := readPgbenchLog(f)
		if err != nil {
			return Result{}, err
		}
		lat = append(lat, l...)
		if first == 0 || (lo != 0 && lo < first) {
			first = lo
		}
		if hi > last {
			last = hi
		}
	}
	if len(lat) == 0 || last <= first {
		return Result{}, fmt.Errorf("pgbench logged no transaction:\n%s", out)
	}
	slices.Sort(lat)
	secs := float64(last-first) / 1e6
	return Result{Clients: clients, Calls: 2 * len(lat), Seconds: secs, CallsPerS: float64(2*len(lat)) / secs,
		P50Ms: ms(Quantile(lat, 0.5)), P99Ms: ms(Quantile(lat, 0.99)), P999Ms: ms(Quantile(lat, 0.999)),
		MaxMs: ms(lat[len(lat)-1])}, nil
}

// readPgbenchLog reads a pgbench transaction log: "client_id
// transaction_no time script_no time_epoch time_us" a line, time in µs.
// It gives the latencies and the first and last end in µs of the epoch.
func readPgbenchLog(path string) (lat []time.Duration, first, last int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		us, err1 := strconv.ParseInt(fields[2], 10, 64)
		sec, err2 := strconv.ParseInt(fields[4], 10, 64)
		frac, err3 := strconv.ParseInt(fields[5], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, 0, 0, fmt.Errorf("%s: the line %q", path, sc.Text())
		}
		end := sec*1e6 + frac
		if first == 0 || end-us < first {
			first = end - us
		}
		last = max(last, end)
		lat = append(lat, time.Duration(us)*time.Microsecond)
	}
	return lat, first, last, sc.Err()
}

// Stop stops the cluster (fast shutdown) and waits for it.
func (p *Postgres) Stop() error {
	out, err := p.command("pg_ctl", "-D", filepath.Join(p.dir, "data"), "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// Etcd is a throwaway etcd of one member in a directory, on loopback
// ports, durable as it ships (each commit in its WAL, flushed, before its
// reply). The load reaches it through its JSON gateway (/v3/kv/...), with
// the same HTTP client as riff-server's load.
type Etcd struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// StartEtcd starts etcd (found on PATH) with its data in dir; it gives
// ErrPeerMissing when etcd is not installed (Debian: etcd-server).
func StartEtcd(dir, logPath string) (*Etcd, error) {
	bin, err := exec.LookPath("etcd")
	if err != nil {
		return nil, fmt.Errorf("etcd (Debian package etcd-server): %w", ErrPeerMissing)
	}
	cport, err := freePort()
	if err != nil {
		return nil, err
	}
	pport, err := freePort()
	if err != nil {
		return nil, err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", cport)
	peer := fmt.Sprintf("http://127.0.0.1:%d", pport)
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "--name", "bench", "--data-dir", dir,
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "bench="+peer, "--log-level", "warn", "--logger", "zap")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	e := &Etcd{URL: client, cmd: cmd, done: make(chan error, 1)}
	go func() { e.done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(client + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return e, nil
			}
		}
		select {
		case err := <-e.done:
			data, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("etcd exited before it served: %v\n%s", err, data)
		default:
		}
		if time.Now().After(deadline) {
			_ = e.Stop()
			return nil, errors.New("etcd did not serve in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// EtcdScript gives the calls of each client: a transaction that puts the
// key of the client if its create revision is 0 (no such key), then the
// delete of that key.
func EtcdScript(clients int) Script {
	s := Script{Clients: make([][]Call, clients)}
	for c := range clients {
		key := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("item-%d", c+1)))
		value := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("session-%d", c+1)))
		s.Clients[c] = []Call{
			{Path: "/v3/kv/txn", Body: []byte(fmt.Sprintf(`{"compare":[{"key":%q,"target":"CREATE","result":"EQUAL","create_revision":"0"}],"success":[{"request_put":{"key":%q,"value":%q}}]}`, key, key, value))},
			{Path: "/v3/kv/deleterange", Body: []byte(fmt.Sprintf(`{"key":%q}`, key))},
		}
	}
	return s
}

// Stop ends etcd (SIGTERM) and waits for it.
func (e *Etcd) Stop() error {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.done:
		return nil
	case <-time.After(30 * time.Second):
		_ = e.cmd.Process.Kill()
		<-e.done
		return errors.New("etcd did not stop in 30 s after SIGTERM")
	}
}

// freePort gives a loopback port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// RunScript runs a script against url with the options of o (its Body
// is set from the script).
func RunScript(ctx context.Context, s Script, o Options) (Result, error) {
	body, err := s.Body()
	if err != nil {
		return Result{}, err
	}
	o.Body = body
	return Run(ctx, o)
}
