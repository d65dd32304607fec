// Package all registers every agent client desk knows. Import it for its
// side effect where clients are needed:
//
//	import _ "desk/agent/all"
package all

import (
	_ "desk/agent/antigravity" // Antigravity CLI
	_ "desk/agent/bash"        // bash sessions (launch only)
	_ "desk/agent/claude"      // Claude Code
	_ "desk/agent/codex"       // Codex
	_ "desk/agent/gemini"      // Gemini CLI
	_ "desk/agent/grok"        // Grok
	_ "desk/agent/kimi"        // Kimi Code
	_ "desk/agent/muse"        // Muse Code
	_ "desk/agent/opencode"    // opencode, through desk's plugin
	_ "desk/agent/pi"          // Pi, through desk's extension
	_ "desk/agent/qwen"        // Qwen Code
)
