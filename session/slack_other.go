//go:build !linux

package session

func withDefaultSlack(fn func() error) error { return fn() }
