package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"desk"
	"desk/agent/live"
	"desk/code"
	"desk/code/blobstore"
	"desk/folder"
	deskhttp "desk/http"
	"desk/identity"
	"desk/metrics"
	"desk/pair"
	"desk/postgres"
	"desk/s3"
	"desk/tiers"
)

// teamOptions are desk serve's settings of the team server.
type teamOptions struct {
	db      string // --db or DATABASE_URL
	objects string // --objects, or the S3_ variables
	metrics string // --metrics: the metrics' own address; "" for none
	port    int
	lan     bool
}

// teamMode reports whether desk serve runs the team server: a database
// URL given by --db or DATABASE_URL.
func teamMode(c *Context, db string) (string, bool) {
	if db == "" {
		db = c.Getenv("DATABASE_URL")
	}
	return db, db != ""
}

// buildID names the running build: DESK_BUILD_COMMIT, else the commit the
// binary was built from, else "dev".
func buildID(getenv func(string) string) string {
	if b := getenv("DESK_BUILD_COMMIT"); b != "" {
		return b
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "dev"
}

// envBytes reads a size in bytes from the environment variable name.
func envBytes(getenv func(string) string, name string, def int64) (int64, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, desk.Errorf(desk.Invalid, "%s=%q is not a number of bytes", name, v)
	}
	return n, nil
}

// teamObjects opens the object store of the attachments: S3 (the --objects
// address and the S3_ variables) with the read tiers in front of it, or,
// with neither, the data folder (one replica, or replicas that share it).
func teamObjects(ctx context.Context, c *Context, raw string) (desk.Blobs, string, func(context.Context) error, error) {
	if raw == "" && c.Getenv("S3_BUCKET") == "" && c.Getenv("S3_ENDPOINT") == "" {
		dir := c.DataDir
		if d := c.Getenv("DESK_BLOBS_DIR"); d != "" {
			dir = d
		}
		return folder.New(dir), "folder " + dir, nil, nil
	}
	store, desc, err := bucketObjects(ctx, c, raw)
	if err != nil {
		return nil, "", nil, err
	}
	memBytes, err := envBytes(c.Getenv, "DESK_MEMORY_CACHE_BYTES", 256<<20)
	if err != nil {
		return nil, "", nil, err
	}
	diskBytes, err := envBytes(c.Getenv, "DESK_CACHE_MAX_BYTES", 10<<30)
	if err != nil {
		return nil, "", nil, err
	}
	var ts []tiers.Tier
	if memBytes > 0 {
		ts = append(ts, tiers.NewMemory(memBytes))
	}
	if diskBytes > 0 {
		dir := c.Getenv("DESK_CACHE_DIR")
		if dir == "" {
			dir = filepath.Join(c.DataDir, "cache")
		}
		disk, err := tiers.OpenDisk(dir, diskBytes)
		if err != nil {
			return nil, "", nil, fmt.Errorf("the disk cache in %s: %w", dir, err)
		}
		ts = append(ts, disk)
	}
	// One set of tiers for the attachments and the code's objects: a code
	// object's copy in a tier must hash to its key, or it is a miss.
	return tiers.New(store, tiers.Options{Tiers: ts, Verify: blobstore.Verify}), desc, store.Check, nil
}

// bucketObjects opens the S3 store of the --objects address and the S3_
// variables, checked, with no tier in front: what a tool that copies a
// whole store (desk migrate, backup and restore of a team store) writes
// to, so that no cache of another bucket stands in for it.
func bucketObjects(ctx context.Context, c *Context, raw string) (*s3.Store, string, error) {
	cfg, err := s3.ParseURL(raw, c.Getenv)
	if err != nil {
		return nil, "", err
	}
	store, err := s3.New(cfg)
	if err != nil {
		return nil, "", err
	}
	if err := store.Check(ctx); err != nil {
		return nil, "", err
	}
	return store, cfg.String(), nil
}

// serveTeam runs the team server: the records in PostgreSQL, the
// attachments in S3 (or the data folder), structured logs in JSON on
// stderr, and the metrics on their own port.
func serveTeam(ctx context.Context, c *Context, o teamOptions) error {
	logger := slog.New(slog.NewJSONHandler(c.Stderr, nil))
	build := buildID(c.Getenv)
	blobs, objectsDesc, objectsCheck, err := teamObjects(ctx, c, o.objects)
	if err != nil {
		return fmt.Errorf("the object store: %w", err)
	}
	var db *postgres.DB
	m := metrics.New(func(ctx context.Context) error {
		if db == nil {
			return errors.New("not connected")
		}
		return db.Ping(ctx)
	})
	counted := m.Blobs(blobs)
	// Writes wait for the writers' lock holding a connection each, so the
	// pool is large enough that reads never queue behind them.
	conns, err := envBytes(c.Getenv, "DESK_DB_MAX_CONNS", 16)
	if err != nil {
		return err
	}
	if conns < 2 {
		return desk.Errorf(desk.Invalid, "DESK_DB_MAX_CONNS=%d: a replica needs at least 2 connections", conns)
	}
	db, err = postgres.Open(ctx, o.db, postgres.Options{Blobs: counted, Logger: logger, MaxConns: int32(min(conns, 1000))})
	if err != nil {
		return err
	}
	defer db.Close()
	// The code: its tables in the database, its objects in the object
	// store beside the attachments (S3 behind the read tiers).
	codeSvc := code.NewService(m.Code(db.Code()), blobstore.New(counted))
	host := "127.0.0.1"
	if o.lan {
		host = "0.0.0.0"
	}
	pairs := postgres.NewPairStore(db)
	defer pairs.Close()
	// Patch files are written only by the members' own desks; a
	// replica's rules would keep theirs in its own folder.
	pairSvc := &pair.Service{Store: pairs, PatchRoot: pair.PatchRootIn(c.DataDir)}
	ids := identity.New(db.Identities())
	adminToken, adminFile, err := ids.EnsureTeamAdmin(ctx, c.DataDir)
	if err != nil {
		return fmt.Errorf("make the first admin: %w", err)
	}
	agents := live.New(db, live.Options{DataDir: c.DataDir, Logger: logger, Shared: true})
	srv := deskhttp.NewServer(feedMetrics{db, m, pairSvc}, deskhttp.Options{
		Addr: net.JoinHostPort(host, strconv.Itoa(o.port)), LAN: o.lan, Logger: logger,
		Health:  deskhttp.Health{Build: build, DB: db.Ping, Objects: objectsCheck},
		Observe: m.Request, Code: codeSvc,
		Team: true, Identities: ids, Agents: agents,
		Devices: &identity.Devices{Store: db.Identities(), Identities: ids},
	})
	if err := srv.Open(); err != nil {
		return desk.Errorf(desk.Conflict, "cannot listen on port %d: %v", o.port, err).WithHint("pick another --port")
	}
	defer srv.Close()
	var metricsURL string
	if o.metrics != "" {
		ln, err := net.Listen("tcp", o.metrics)
		if err != nil {
			return desk.Errorf(desk.Conflict, "cannot serve the metrics on %s: %v", o.metrics, err)
		}
		ms := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go ms.Serve(ln)
		defer ms.Close()
		metricsURL = "http://" + ln.Addr().String() + "/metrics"
	}
	logger.Info("desk server started", "url", srv.URL(), "db", postgres.Redact(o.db), "objects", objectsDesc,
		"metrics", metricsURL, "version", desk.Version, "build", build, "lan", o.lan, "auth", "bearer token")
	fmt.Fprintf(c.Stdout, "desk is running at %s (team server: database %s, objects %s", srv.URL(), postgres.Redact(o.db), objectsDesc)
	if metricsURL != "" {
		fmt.Fprintf(c.Stdout, ", metrics %s", metricsURL)
	}
	fmt.Fprintln(c.Stdout, "); Ctrl+C stops it")
	fmt.Fprintln(c.Stdout, "every API request needs Authorization: Bearer <token> (GET /api/health excepted); the page asks its people to sign in")
	if adminToken != "" {
		// Stdout, never the log: the token is shown this once.
		fmt.Fprintf(c.Stdout, "first start: made the identity %s with every right; its token (shown once, also in %s):\n%s\n", identity.AdminName, adminFile, adminToken)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	logger.Info("desk server stopping")
	return nil
}

// feedMetrics is the team store with the lag of every feed batch this
// replica hands to its live streams recorded.
type feedMetrics struct {
	*postgres.DB
	m     *metrics.Metrics
	pairs *pair.Service
}

// PairService is the pair rules over the database's pair store.
func (f feedMetrics) PairService() *pair.Service { return f.pairs }

func (f feedMetrics) Watch(ctx context.Context, after int64, fn func([]*desk.Change)) error {
	return f.DB.Watch(ctx, after, func(cs []*desk.Change) {
		f.m.Feed(cs, time.Now())
		fn(cs)
	})
}
