package desk

import "time"

// CommandTTL is how long a queued game command waits for a game to pick it
// up, so that a game started later does not replay old teleports.
const CommandTTL = 10 * time.Minute

// Command is a game command queued by "Send to game". A game polls for the
// oldest pending one; each is delivered once.
type Command struct {
	ID          int64   `json:"id"`
	Project     string  `json:"project"`
	Command     string  `json:"command"`
	Issue       *string `json:"issue"`
	CreatedBy   string  `json:"created_by"`
	CreatedAt   string  `json:"created_at"`
	ExpiresAt   string  `json:"expires_at"`
	DeliveredAt *string `json:"delivered_at"`
	Client      *string `json:"client"`
	State       string  `json:"state"` // pending, delivered or expired
}

// Command states.
const (
	CommandPending   = "pending"
	CommandDelivered = "delivered"
	CommandExpired   = "expired"
)

// CommandState derives a command's state at now.
func CommandState(deliveredAt *string, expiresAt string, now time.Time) string {
	if deliveredAt != nil {
		return CommandDelivered
	}
	if expiresAt <= FormatTime(now) {
		return CommandExpired
	}
	return CommandPending
}

// CommandInput queues a command: the text, or the issue whose command (the
// first, or number At) to send.
type CommandInput struct {
	Command string
	Issue   string
	At      int // 1-based command of the issue; 0 means the first
	Author  string
}
