// Package s3 is desk's object store on an S3-compatible server (AWS S3,
// MinIO, SeaweedFS, Versity Gateway, a cloud's object storage), through
// minio-go: the team server's attachments, and the code's objects after
// them. It keeps each object under the store's prefix in one bucket.
//
// Reads in front of it go through the tiers of package tiers (process
// memory, then a local disk cache); writes go here first, so that desk
// confirms an object only once S3 holds it.
package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"desk"
	"desk/folder"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Config says where the store is.
type Config struct {
	// Endpoint is the server's URL, http://host:port or https://host;
	// a path after the host is not supported.
	Endpoint  string
	Region    string // default us-east-1
	Bucket    string
	AccessKey string
	SecretKey string
	// Prefix goes in front of every key, so that two desks share a bucket.
	Prefix string
}

// ParseURL reads an --objects value, s3://BUCKET[/PREFIX]?endpoint=URL
// &region=REGION, taking what it lacks from the environment: S3_ENDPOINT,
// S3_BUCKET, S3_REGION (default us-east-1), S3_ACCESS_KEY_ID and
// S3_SECRET_ACCESS_KEY. The keys are read only from the environment, so
// that they never appear in a command line or a log.
func ParseURL(raw string, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := Config{Endpoint: getenv("S3_ENDPOINT"), Region: getenv("S3_REGION"), Bucket: getenv("S3_BUCKET"),
		AccessKey: getenv("S3_ACCESS_KEY_ID"), SecretKey: getenv("S3_SECRET_ACCESS_KEY")}
	if raw != "" {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "s3" || u.Host == "" {
			return c, desk.Errorf(desk.Invalid, "objects: %q is not an S3 address; write s3://BUCKET?endpoint=http://host:9000&region=us-east-1", raw)
		}
		c.Bucket = u.Host
		c.Prefix = strings.Trim(u.Path, "/")
		q := u.Query()
		if e := q.Get("endpoint"); e != "" {
			c.Endpoint = e
		}
		if r := q.Get("region"); r != "" {
			c.Region = r
		}
		if q.Get("access_key") != "" || q.Get("secret_key") != "" {
			return c, desk.Errorf(desk.Invalid, "objects: keys do not go in the address; set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY")
		}
	}
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"endpoint (S3_ENDPOINT)", c.Endpoint}, {"bucket (S3_BUCKET)", c.Bucket},
		{"S3_ACCESS_KEY_ID", c.AccessKey}, {"S3_SECRET_ACCESS_KEY", c.SecretKey}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return c, desk.Errorf(desk.Invalid, "objects: the S3 store lacks %s", strings.Join(missing, ", "))
	}
	return c, nil
}

// String describes the store without its keys.
func (c Config) String() string {
	s := "s3://" + c.Bucket
	if c.Prefix != "" {
		s += "/" + c.Prefix
	}
	return s + " at " + c.Endpoint + " (" + c.Region + ")"
}

// Store is an object store in one bucket. It is safe for concurrent use.
type Store struct {
	cfg    Config
	client *minio.Client
}

// New returns the store cfg names. It does not reach the server; Check
// does.
func New(cfg Config) (*Store, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, desk.Errorf(desk.Invalid, "objects: endpoint %q must be http://host:port or https://host", cfg.Endpoint)
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		return nil, desk.Errorf(desk.Invalid, "objects: endpoint %q has a path (%s); name the server's host only", cfg.Endpoint, p)
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Region:       cfg.Region,
		BucketLookup: minio.BucketLookupPath,
		// A network fault or a 5xx is tried three times in all; past
		// that the request fails and says why, rather than hold the
		// caller through the client's default ten tries.
		MaxRetries: 3,
	})
	if err != nil {
		return nil, fmt.Errorf("objects: %w", err)
	}
	return &Store{cfg: cfg, client: client}, nil
}

// Config returns the store's configuration.
func (s *Store) Config() Config { return s.cfg }

// Check reaches the server and makes sure the bucket is there.
func (s *Store) Check(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.cfg.Bucket)
	if err != nil {
		return fmt.Errorf("objects: %s: %w", s.cfg, err)
	}
	if !ok {
		return desk.Errorf(desk.NotFound, "objects: bucket %s does not exist at %s; create it first", s.cfg.Bucket, s.cfg.Endpoint)
	}
	return nil
}

// MakeBucket creates the store's bucket when it is missing.
func (s *Store) MakeBucket(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.cfg.Bucket)
	if err != nil || ok {
		return err
	}
	return s.client.MakeBucket(ctx, s.cfg.Bucket, minio.MakeBucketOptions{Region: s.cfg.Region})
}

func (s *Store) name(key string) (string, error) {
	if err := folder.CheckKey(key); err != nil {
		return "", err
	}
	if s.cfg.Prefix != "" {
		return s.cfg.Prefix + "/" + key, nil
	}
	return key, nil
}

// fail words a refusal of the server: the operation, the key and what the
// server said. A missing key is NotFound; a missing bucket is not (it is
// the store that is broken, not the object that is absent), and neither
// is anything a write is refused with.
func (s *Store) fail(op, key string, err error) error {
	var r minio.ErrorResponse
	if errors.As(err, &r) {
		if r.Code == "NoSuchBucket" {
			return fmt.Errorf("objects: %s %s: the bucket %s does not exist at %s (removed, or the wrong bucket configured)",
				op, key, s.cfg.Bucket, s.cfg.Endpoint)
		}
		if op != "put" && (r.StatusCode == http.StatusNotFound || r.Code == "NoSuchKey") {
			return desk.Errorf(desk.NotFound, "no object %s", key)
		}
		return fmt.Errorf("objects: %s %s in %s: %d %s: %s", op, key, s.cfg.Bucket, r.StatusCode, r.Code, r.Message)
	}
	return fmt.Errorf("objects: %s %s in %s: %w", op, key, s.cfg.Bucket, err)
}

// Put stores data under key; S3 holds it when Put returns.
func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	name, err := s.name(key)
	if err != nil {
		return err
	}
	_, err = s.client.PutObject(ctx, s.cfg.Bucket, name, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: "application/octet-stream", SendContentMd5: true})
	if err != nil {
		return s.fail("put", key, err)
	}
	return nil
}

// Get returns the bytes under key. An object replaced while it is read
// (the server refuses the rest of the old version) is read again, so that
// Get gives one whole version, never a mix.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		r, _, err := s.Open(ctx, key)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err == nil {
			return b, nil
		}
		var resp minio.ErrorResponse
		if errors.As(err, &resp) && resp.StatusCode == http.StatusPreconditionFailed && attempt < 5 {
			continue
		}
		return nil, s.fail("get", key, err)
	}
}

// Open returns the bytes under key for streaming, with their size.
func (s *Store) Open(ctx context.Context, key string) (io.ReadSeekCloser, int64, error) {
	name, err := s.name(key)
	if err != nil {
		return nil, 0, err
	}
	obj, err := s.client.GetObject(ctx, s.cfg.Bucket, name, minio.GetObjectOptions{})
	if err != nil {
		return nil, 0, s.fail("get", key, err)
	}
	st, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, 0, s.fail("get", key, err)
	}
	return obj, st.Size, nil
}

// Exists reports whether key is there, with a HEAD request: its bytes are
// not read.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	name, err := s.name(key)
	if err != nil {
		return false, err
	}
	if _, err := s.client.StatObject(ctx, s.cfg.Bucket, name, minio.StatObjectOptions{}); err != nil {
		err = s.fail("stat", key, err)
		if desk.ErrorCode(err) == desk.NotFound {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// Delete removes key; a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	name, err := s.name(key)
	if err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.cfg.Bucket, name, minio.RemoveObjectOptions{}); err != nil {
		if desk.ErrorCode(s.fail("delete", key, err)) == desk.NotFound {
			return nil
		}
		return s.fail("delete", key, err)
	}
	return nil
}

var _ desk.Blobs = (*Store)(nil)
