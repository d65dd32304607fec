// Package metrics keeps what a desk server tells Prometheus: requests by
// route and status with their durations, whether the database answers,
// how far behind the change feed a replica hears of writes, landings,
// object store errors, and the process's own figures. It is served on a
// port of its own (desk serve --metrics), never on the API's.
package metrics

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"desk"
	"desk/code"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one server's metrics. It is safe for concurrent use.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	feedLag   prometheus.Gauge
	landings  prometheus.Counter
	objErrors prometheus.Counter
}

// New makes the metrics; ping tells whether the database answers, at each
// scrape (nil: no database to watch, desk_db_up stays 1).
func New(ping func(context.Context) error) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "desk_http_requests_total", Help: "API requests by route pattern and status.",
	}, []string{"route", "status"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "desk_http_request_duration_seconds", Help: "The time of an API request, by route pattern.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"route"})
	m.feedLag = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "desk_feed_lag_seconds", Help: "How long after its commit this replica handed over the newest feed row.",
	})
	m.landings = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "desk_landings_total", Help: "Changes landed on main through this replica.",
	})
	m.objErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "desk_object_store_errors_total", Help: "Object store operations that failed (a missing object is not a failure).",
	})
	dbUp := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "desk_db_up", Help: "1 when the database answered at this scrape, 0 when not.",
	}, func() float64 {
		if ping == nil {
			return 1
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if ping(ctx) != nil {
			return 0
		}
		return 1
	})
	m.reg.MustRegister(m.requests, m.durations, m.feedLag, m.landings, m.objErrors, dbUp,
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	return m
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Request counts one API request; route is its pattern
// ("/api/issues/{id}"), never the path asked for.
func (m *Metrics) Request(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.durations.WithLabelValues(route).Observe(d.Seconds())
}

// Feed records the lag of a batch of feed rows this replica handed over.
func (m *Metrics) Feed(cs []*desk.Change, now time.Time) {
	if len(cs) == 0 {
		return
	}
	if t, err := desk.ParseTime(cs[len(cs)-1].At); err == nil {
		m.feedLag.Set(max(now.Sub(t).Seconds(), 0))
	}
}

// Landed counts a landing.
func (m *Metrics) Landed() { m.landings.Inc() }

// Code returns the code's tables with every landing on main counted.
func (m *Metrics) Code(s code.Store) code.Store { return countedCode{s, m} }

type countedCode struct {
	code.Store
	m *Metrics
}

func (c countedCode) MoveMain(ctx context.Context, mv code.Move) ([]code.LogEntry, error) {
	es, err := c.Store.MoveMain(ctx, mv)
	if err == nil {
		c.m.landings.Add(float64(len(es)))
	}
	return es, err
}

// Blobs returns b with its failures counted.
func (m *Metrics) Blobs(b desk.Blobs) desk.Blobs { return &countedBlobs{b, m} }

type countedBlobs struct {
	desk.Blobs
	m *Metrics
}

func (c *countedBlobs) count(err error) error {
	if err != nil && desk.ErrorCode(err) != desk.NotFound {
		c.m.objErrors.Inc()
	}
	return err
}

func (c *countedBlobs) Put(ctx context.Context, key string, data []byte) error {
	return c.count(c.Blobs.Put(ctx, key, data))
}

func (c *countedBlobs) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := c.Blobs.Get(ctx, key)
	return b, c.count(err)
}

func (c *countedBlobs) Open(ctx context.Context, key string) (io.ReadSeekCloser, int64, error) {
	r, n, err := c.Blobs.Open(ctx, key)
	return r, n, c.count(err)
}

// Exists answers through the store's own HEAD when it has one, else by
// opening the key.
func (c *countedBlobs) Exists(ctx context.Context, key string) (bool, error) {
	if st, ok := c.Blobs.(interface {
		Exists(context.Context, string) (bool, error)
	}); ok {
		ok, err := st.Exists(ctx, key)
		return ok, c.count(err)
	}
	r, _, err := c.Blobs.Open(ctx, key)
	if desk.ErrorCode(err) == desk.NotFound {
		return false, nil
	}
	if err != nil {
		return false, c.count(err)
	}
	r.Close()
	return true, nil
}

func (c *countedBlobs) Delete(ctx context.Context, key string) error {
	return c.count(c.Blobs.Delete(ctx, key))
}
