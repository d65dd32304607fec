package identity

import (
	"context"
	"crypto/rand"
	"strings"
	"time"

	"desk"
)

// The device login of RFC 8628: a browser (or a terminal) that holds no
// token asks for a pair of codes, shows the short one to its person, and
// polls with the long one; the person, signed in elsewhere, approves the
// short one, and the next poll gets a new token of the approving identity.
// The codes live in the database, so a poll may reach any replica.

// Device login settings.
const (
	// DeviceLoginTTL is how long a pair of codes waits for its approval.
	DeviceLoginTTL = 10 * time.Minute
	// DeviceInterval is the seconds a client waits between two polls; a
	// poll that comes sooner gets slow_down, and the interval grows by it.
	DeviceInterval = 5
)

// The answers of a poll that carries no token (RFC 8628 section 3.5).
const (
	DevicePending  = "authorization_pending"
	DeviceSlowDown = "slow_down"
	DeviceDenied   = "access_denied"
	DeviceExpired  = "expired_token"
)

// DeviceError is a poll's refusal: Code is one of the RFC's error codes.
type DeviceError struct {
	Code     string
	Interval int // the interval the client should now keep, in seconds
}

func (e *DeviceError) Error() string {
	switch e.Code {
	case DevicePending:
		return "the code is not approved yet"
	case DeviceSlowDown:
		return "polled too soon: wait the interval between two polls"
	case DeviceDenied:
		return "the code was denied"
	}
	return "the code expired or was used: ask for a new one"
}

// DeviceLogin is one pair of codes and where it stands.
type DeviceLogin struct {
	UserCode   string  `json:"user_code"`
	ClientID   string  `json:"client_id"`
	CreatedAt  string  `json:"created_at"`
	ExpiresAt  string  `json:"expires_at"`
	Interval   int     `json:"interval"`
	LastPollAt *string `json:"-"`
	// Identity is who the login signs in as, once approved; ApprovedBy
	// is who approved it (the same person, or an admin).
	Identity   *string `json:"identity"`
	ApprovedBy *string `json:"approved_by"`
	Denied     bool    `json:"denied"`
	Done       bool    `json:"done"` // its token was handed out
}

// Status names where a login stands at now.
func (d *DeviceLogin) Status(now time.Time) string {
	switch {
	case d.Done:
		return "used"
	case d.Denied:
		return "denied"
	case expired(d.ExpiresAt, now):
		return "expired"
	case d.Identity != nil:
		return "approved"
	}
	return "pending"
}

func expired(at string, now time.Time) bool {
	t, err := desk.ParseTime(at)
	return err != nil || !now.Before(t)
}

// DeviceStore keeps the device logins.
type DeviceStore interface {
	// CreateDeviceLogin keeps a new login under the hash of its device
	// code. Conflict when the user code is taken by a login in force.
	CreateDeviceLogin(ctx context.Context, deviceHash string, d *DeviceLogin) error
	// DeviceLogin returns a login by its user code. NotFound when none.
	DeviceLogin(ctx context.Context, userCode string) (*DeviceLogin, error)
	// UpdateDeviceLogin runs fn on the login of a user code, or of a
	// device code's hash when userCode is "", and keeps what fn changed
	// unless fn fails, all in one transaction: two replicas deciding on one login go one
	// after the other. NotFound when there is no such login.
	UpdateDeviceLogin(ctx context.Context, userCode, deviceHash string, fn func(*DeviceLogin) error) error
}

// Devices applies the device login's rules over a store of logins and the
// identities.
type Devices struct {
	Store      DeviceStore
	Identities *Service
	Now        func() time.Time
}

// userCodeAlphabet has no vowels (no words) and no look-alike letters, as
// RFC 8628 section 6.1 suggests; 8 of them hold about 34 bits.
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

func newUserCode() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	out := make([]byte, 0, 9)
	for i, c := range b {
		if i == 4 {
			out = append(out, '-')
		}
		// 256 is not a multiple of 20; the bias (a few letters 1/13
		// likelier) costs a fraction of a bit.
		out = append(out, userCodeAlphabet[int(c)%len(userCodeAlphabet)])
	}
	return string(out)
}

// NormalUserCode reads a user code as a person types it: any case, with
// or without the dash or spaces.
func NormalUserCode(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if strings.ContainsRune(userCodeAlphabet, r) {
			b.WriteRune(r)
		}
	}
	u := b.String()
	if len(u) != 8 {
		return ""
	}
	return u[:4] + "-" + u[4:]
}

func (d *Devices) now() time.Time {
	if d.Now != nil {
		return d.Now().UTC()
	}
	return time.Now().UTC()
}

// Start makes a pair of codes for clientID and returns the device code
// (the client's secret, kept only as a hash) and the login.
func (d *Devices) Start(ctx context.Context, clientID string) (string, *DeviceLogin, error) {
	clientID = strings.TrimSpace(clientID)
	if clientID == "" {
		clientID = "desk-page"
	}
	if len(clientID) > 64 {
		return "", nil, desk.Errorf(desk.Invalid, "client_id: at most 64 characters")
	}
	now := d.now()
	for range 5 {
		device := NewToken()
		l := &DeviceLogin{UserCode: newUserCode(), ClientID: clientID, CreatedAt: desk.FormatTime(now),
			ExpiresAt: desk.FormatTime(now.Add(DeviceLoginTTL)), Interval: DeviceInterval}
		err := d.Store.CreateDeviceLogin(ctx, HashToken(device), l)
		if desk.ErrorCode(err) == desk.Conflict {
			continue // a user code in force already: draw another
		}
		if err != nil {
			return "", nil, err
		}
		return device, l, nil
	}
	return "", nil, desk.Errorf(desk.Conflict, "could not draw a free user code; try again")
}

// Lookup returns the login of a user code for a person who is about to
// approve it.
func (d *Devices) Lookup(ctx context.Context, userCode string) (*DeviceLogin, error) {
	code := NormalUserCode(userCode)
	if code == "" {
		return nil, desk.Errorf(desk.Invalid, "%q is not a user code: it is 8 letters, like BCDF-GHJK", clip(userCode))
	}
	l, err := d.Store.DeviceLogin(ctx, code)
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, desk.Errorf(desk.NotFound, "no login waits for the code %s", code).WithHint("check the code the other screen shows, or ask it for a new one")
	}
	return l, err
}

// Decide approves (as identity, "" for the approver itself) or denies a
// waiting login for the approver c. Only an admin approves a login as
// someone else.
func (d *Devices) Decide(ctx context.Context, c *Caller, userCode, as string, approve bool) (*DeviceLogin, error) {
	code := NormalUserCode(userCode)
	if code == "" {
		return nil, desk.Errorf(desk.Invalid, "%q is not a user code: it is 8 letters, like BCDF-GHJK", clip(userCode))
	}
	as = strings.TrimSpace(as)
	if as == "" {
		as = c.Name
	}
	if as != c.Name {
		if !c.IsAdmin() {
			return nil, desk.Errorf(desk.Forbidden, "%s may sign a device in only as itself; an admin signs one in as %s", c.Name, as)
		}
		if _, err := d.Identities.Store.Identity(ctx, as); err != nil {
			return nil, err
		}
	}
	now := d.now()
	var out *DeviceLogin
	err := d.Store.UpdateDeviceLogin(ctx, code, "", func(l *DeviceLogin) error {
		if st := l.Status(now); st != "pending" {
			return desk.Errorf(desk.Conflict, "the code %s is %s", code, st).WithHint("ask the other screen for a new code")
		}
		if approve {
			l.Identity = &as
		} else {
			l.Denied = true
		}
		approver := c.Name
		l.ApprovedBy = &approver
		out = l
		return nil
	})
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, desk.Errorf(desk.NotFound, "no login waits for the code %s", code)
	}
	return out, err
}

// Poll answers the client that holds device: a new token of the approved
// identity once, else a *DeviceError (pending, slow_down, denied,
// expired). A device code nobody knows is expired too: it may have been
// used, or never made.
func (d *Devices) Poll(ctx context.Context, device string) (string, *Identity, error) {
	now := d.now()
	ts := desk.FormatTime(now)
	var refused *DeviceError
	var as string
	err := d.Store.UpdateDeviceLogin(ctx, "", HashToken(strings.TrimSpace(device)), func(l *DeviceLogin) error {
		st := l.Status(now)
		if st == "expired" || st == "used" {
			refused = &DeviceError{Code: DeviceExpired}
			return nil
		}
		soon := false
		if l.LastPollAt != nil {
			last, err := desk.ParseTime(*l.LastPollAt)
			soon = err == nil && now.Before(last.Add(time.Duration(l.Interval)*time.Second))
		}
		l.LastPollAt = &ts
		switch {
		case soon:
			l.Interval += DeviceInterval
			refused = &DeviceError{Code: DeviceSlowDown, Interval: l.Interval}
		case st == "denied":
			l.Done = true
			refused = &DeviceError{Code: DeviceDenied}
		case st == "pending":
			refused = &DeviceError{Code: DevicePending, Interval: l.Interval}
		default:
			l.Done = true
			as = *l.Identity
		}
		return nil
	})
	if desk.ErrorCode(err) == desk.NotFound {
		return "", nil, &DeviceError{Code: DeviceExpired}
	}
	if err != nil {
		return "", nil, err
	}
	if refused != nil {
		return "", nil, refused
	}
	token, _, err := d.Identities.NewToken(ctx, as, "device login")
	if err != nil {
		return "", nil, err
	}
	id, err := d.Identities.Store.Identity(ctx, as)
	if err != nil {
		return "", nil, err
	}
	return token, id, nil
}

// StatusOf names where a login stands now, by the service's clock.
func (d *Devices) StatusOf(l *DeviceLogin) string { return l.Status(d.now()) }
