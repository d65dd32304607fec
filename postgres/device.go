package postgres

import (
	"context"
	"errors"
	"time"

	"desk"
	"desk/identity"

	"github.com/jackc/pgx/v5"
)

var _ identity.DeviceStore = (*IdentityStore)(nil)

// deviceKeep is how long a finished or expired device login stays, so
// that its user code is not drawn again while someone may still type it.
const deviceKeep = 24 * time.Hour

const deviceCols = `user_code, client_id, created_at, expires_at, poll_every, last_poll_at, identity, approved_by, denied, done`

func scanDevice(r pgx.Row) (*identity.DeviceLogin, error) {
	l := &identity.DeviceLogin{}
	err := r.Scan(&l.UserCode, &l.ClientID, &l.CreatedAt, &l.ExpiresAt, &l.Interval, &l.LastPollAt, &l.Identity, &l.ApprovedBy, &l.Denied, &l.Done)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, desk.Errorf(desk.NotFound, "no such device login")
	}
	return l, err
}

// CreateDeviceLogin keeps a new device login, and drops the logins that
// ended more than a day ago.
func (s *IdentityStore) CreateDeviceLogin(ctx context.Context, deviceHash string, l *identity.DeviceLogin) error {
	old := desk.FormatTime(s.db.Now().UTC().Add(-deviceKeep))
	if _, err := s.db.pool.Exec(ctx, `DELETE FROM device_logins WHERE expires_at < $1`, old); err != nil {
		return err
	}
	_, err := s.db.pool.Exec(ctx, `INSERT INTO device_logins (device_hash, user_code, client_id, created_at, expires_at, poll_every)
		VALUES ($1, $2, $3, $4, $5, $6)`, deviceHash, l.UserCode, l.ClientID, l.CreatedAt, l.ExpiresAt, l.Interval)
	if isUnique(err) {
		return desk.Errorf(desk.Conflict, "the user code %s is taken", l.UserCode)
	}
	return err
}

// DeviceLogin returns a device login by its user code.
func (s *IdentityStore) DeviceLogin(ctx context.Context, userCode string) (*identity.DeviceLogin, error) {
	return scanDevice(s.db.pool.QueryRow(ctx, `SELECT `+deviceCols+` FROM device_logins WHERE user_code = $1`, userCode))
}

// UpdateDeviceLogin changes a device login under its row's lock.
func (s *IdentityStore) UpdateDeviceLogin(ctx context.Context, userCode, deviceHash string, fn func(*identity.DeviceLogin) error) error {
	tx, err := s.db.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	where, arg := `user_code = $1`, userCode
	if userCode == "" {
		where, arg = `device_hash = $1`, deviceHash
	}
	l, err := scanDevice(tx.QueryRow(ctx, `SELECT `+deviceCols+` FROM device_logins WHERE `+where+` FOR UPDATE`, arg))
	if err != nil {
		return err
	}
	if err := fn(l); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE device_logins SET poll_every = $2, last_poll_at = $3, identity = $4, approved_by = $5, denied = $6, done = $7
		WHERE user_code = $1`, l.UserCode, l.Interval, l.LastPollAt, l.Identity, l.ApprovedBy, l.Denied, l.Done); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
