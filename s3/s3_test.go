package s3_test

import (
	"context"
	"strings"
	"testing"

	"desk"
	"desk/blobtest"
	"desk/internal/s3server"
	"desk/s3"
)

// open starts a server and returns an empty store on a new bucket.
func open(tb testing.TB, srv *s3server.Server, bucket, prefix string) *s3.Store {
	tb.Helper()
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: bucket, AccessKey: srv.AccessKey,
		SecretKey: srv.SecretKey, Prefix: prefix})
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.MakeBucket(context.Background()); err != nil {
		tb.Fatal(err)
	}
	if err := st.Check(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return st
}

// The object store suite on a real S3 server (Versity Gateway over a
// folder), each store a bucket of its own, one with a prefix.
func TestBlobSuite(t *testing.T) {
	srv := s3server.Start(t)
	n := 0
	blobtest.Run(t, func(tb testing.TB) desk.Blobs {
		n++
		prefix := ""
		if n%2 == 0 {
			prefix = "team/desk"
		}
		return open(tb, srv, "desk-test-"+string(rune('a'+n)), prefix)
	})
}

func TestParseURLTakesTheRestFromTheEnvironment(t *testing.T) {
	env := map[string]string{"S3_ACCESS_KEY_ID": "AK", "S3_SECRET_ACCESS_KEY": "SK", "S3_ENDPOINT": "http://env:9000"}
	get := func(k string) string { return env[k] }
	c, err := s3.ParseURL("s3://shots/desk?endpoint=http://127.0.0.1:9000&region=eu-west-3", get)
	if err != nil || c.Bucket != "shots" || c.Prefix != "desk" || c.Endpoint != "http://127.0.0.1:9000" || c.Region != "eu-west-3" ||
		c.AccessKey != "AK" || c.SecretKey != "SK" {
		t.Fatalf("%+v %v", c, err)
	}
	env["S3_BUCKET"] = "envbucket"
	if c, err := s3.ParseURL("", get); err != nil || c.Bucket != "envbucket" || c.Endpoint != "http://env:9000" || c.Region != "us-east-1" {
		t.Fatalf("from the environment: %+v %v", c, err)
	}
	if strings.Contains(c.String(), "SK") || strings.Contains(c.String(), "AK") {
		t.Fatalf("the description shows a key: %s", c)
	}
	for raw, want := range map[string]string{
		"http://x":                  "not an S3 address",
		"s3://b?access_key=AK":      "keys do not go in the address",
		"s3://b?endpoint=ftp://x:1": "",
	} {
		_, err := s3.ParseURL(raw, get)
		if want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	delete(env, "S3_SECRET_ACCESS_KEY")
	if _, err := s3.ParseURL("s3://b", get); err == nil || !strings.Contains(err.Error(), "S3_SECRET_ACCESS_KEY") {
		t.Fatalf("a missing secret: %v", err)
	}
	if _, err := s3.New(s3.Config{Endpoint: "ftp://x", Bucket: "b"}); desk.ErrorCode(err) != desk.Invalid {
		t.Fatalf("an ftp endpoint: %v", err)
	}
}

// A bucket that is not there, wrong keys and a server that went away are
// errors that name the store, never a silent success.
func TestRefusalsNameTheCause(t *testing.T) {
	srv := s3server.Start(t)
	ctx := context.Background()
	st, _ := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "missing", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err := st.Check(ctx); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing bucket: %v", err)
	}
	good := open(t, srv, "desk-refusals", "")
	bad, _ := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "desk-refusals", AccessKey: srv.AccessKey, SecretKey: "wrong"})
	if err := bad.Put(ctx, "k", []byte("x")); err == nil || !strings.Contains(err.Error(), "put k in desk-refusals") {
		t.Fatalf("wrong keys: %v", err)
	}
	if _, err := good.Get(ctx, "k"); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("a refused put stored something: %v", err)
	}
	srv.Stop()
	ctx2, cancel := context.WithTimeout(ctx, 20e9)
	defer cancel()
	if err := good.Put(ctx2, "k", []byte("x")); err == nil {
		t.Fatal("a put to a stopped server succeeded")
	}
}
