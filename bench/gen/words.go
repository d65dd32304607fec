package gen

// The vocabulary of a generated desk: a voxel-ish open-world game and the
// tools around it, in the words a developer and their agents actually use.

// projectNames are the projects in order; the first is the main one.
var projectNames = []struct {
	slug, name, prefix string
	weight             float64 // share of the issues outside the main project
	builds             bool    // publishes builds
}{
	{"mygame", "MyGame", "MG", 0, true},
	{"editor", "World Editor", "ED", 34, true},
	{"launcher", "Launcher", "LA", 22, true},
	{"server", "Dedicated Server", "SV", 15, false},
	{"modkit", "Mod Kit", "MK", 10, false},
	{"website", "Website", "WS", 8, false},
	{"assets", "Asset Pipeline", "AP", 5, false},
	{"tools", "Build Tools", "BT", 4, false},
	{"docs", "Player Docs", "PD", 2, false},
}

// area is a part of the game with the things in it that break.
type area struct {
	name     string
	weight   float64
	subjects []string
}

// gameAreas are the areas of the main project; terrain is the most common,
// as it is on the desk the reference figures come from.
var gameAreas = []area{
	{"terrain", 17, []string{"chunk seams", "cliff normals", "terrain LOD", "grass scatter", "heightmap stitching", "snow blending", "road decals", "tree placement", "terrain collision", "erosion pass", "biome borders", "cave entrances"}},
	{"rendering", 11, []string{"shadow cascades", "SSAO", "the bloom pass", "transparent sorting", "foliage shader", "mip selection", "TAA ghosting", "the depth prepass", "particle batching", "decal projection"}},
	{"ui", 10, []string{"the inventory grid", "the map screen", "tooltips", "the pause menu", "subtitles", "the hotbar", "the settings page", "quest log", "the compass", "damage numbers"}},
	{"worldgen", 7, []string{"river carving", "village placement", "ore veins", "the biome noise", "spawn selection", "structure spacing", "lake filling", "mountain ridges"}},
	{"water", 6, []string{"shoreline foam", "water refraction", "the river flow map", "underwater fog", "waterfall particles", "buoyancy", "wave LOD"}},
	{"physics", 6, []string{"ragdolls", "the character controller", "vehicle suspension", "stair stepping", "rope joints", "falling debris", "slope sliding"}},
	{"inventory", 6, []string{"stack splitting", "item pickup", "chest sorting", "the crafting queue", "durability", "drag and drop", "quick transfer"}},
	{"audio", 5, []string{"footstep surfaces", "ambient loops", "music transitions", "reverb zones", "the sound occlusion", "UI clicks", "3D falloff"}},
	{"ai", 5, []string{"wolf pathing", "villager schedules", "the flee behaviour", "navmesh links", "group formation", "target selection", "swimming NPCs"}},
	{"save", 4, []string{"autosave", "save migration", "the slot list", "world backups", "cloud sync", "chunk persistence"}},
	{"networking", 4, []string{"chunk streaming", "player interpolation", "the lobby list", "reconnects", "inventory sync", "voice chat"}},
	{"lighting", 4, []string{"torch flicker", "the day-night cycle", "light probes", "cave darkness", "lantern shadows", "GI bounce"}},
	{"input", 3, []string{"controller remapping", "mouse smoothing", "the Steam Deck layout", "key repeat", "gyro aiming"}},
	{"animation", 3, []string{"climbing", "the swim cycle", "foot IK", "the sprint blend", "door opening", "tool swings"}},
	{"combat", 3, []string{"bow charge", "the hit reactions", "parry timing", "knockback", "arrow drop"}},
	{"crafting", 3, []string{"recipe unlocks", "the workbench UI", "furnace timing", "repair costs"}},
	{"performance", 2, []string{"frame pacing", "chunk meshing", "GC spikes", "draw call count", "shader compilation stutter", "memory on long sessions"}},
}

// toolAreas are the areas of the other projects.
var toolAreas = []area{
	{"ui", 20, []string{"the layout panel", "the toolbar", "dark theme", "the file picker", "keyboard shortcuts", "the status bar"}},
	{"terrain", 12, []string{"the brush tool", "heightmap import", "terrain painting", "the erosion preview", "chunk export"}},
	{"install", 10, []string{"the installer", "first run", "the update check", "file permissions", "the uninstaller"}},
	{"build", 10, []string{"the release script", "asset packing", "the CI cache", "symbol upload", "version stamping"}},
	{"docs", 8, []string{"the modding guide", "the API reference", "screenshots", "the FAQ", "the changelog"}},
	{"networking", 8, []string{"server discovery", "the admin console", "rate limiting", "the heartbeat", "player slots"}},
	{"performance", 6, []string{"startup time", "large worlds", "the asset cache", "memory use"}},
}

var problems = []string{
	"flicker at dusk", "pop in when flying fast", "break after loading a save", "show holes near the river",
	"are misaligned on steep slopes", "stutter on the Steam Deck", "disappear after alt-tab", "are wrong in the snow biome",
	"reset when the chunk unloads", "cause a crash on exit", "ignore the settings", "double after a reconnect",
	"drift over long sessions", "look too dark in caves", "spike the frame time", "lose state on death",
	"overlap the HUD at 4K", "are off by one tile", "leak memory", "fail with a controller",
	"desync in multiplayer", "render black on AMD", "jitter at high framerates", "freeze for a second",
}

var contexts = []string{
	"near the old mill", "at the canyon bridge", "after a long session", "on a fresh world", "in the swamp",
	"when it rains", "at night", "with high settings", "on low settings", "after the last build", "on the north cliffs",
	"while swimming", "with two players", "on first launch", "after teleporting", "at the harbour",
}

var places = []string{
	"river bend", "north cliffs", "old mill", "spawn plateau", "swamp edge", "canyon bridge", "lighthouse", "pine ridge",
	"crater lake", "harbour", "desert outpost", "snowline", "mine entrance", "village square", "sunken ruins", "waterfall",
}

var times = []string{"dawn", "morning", "noon", "afternoon", "dusk", "night", "midnight"}

var weathers = []string{"clear", "rain", "fog", "snow", "storm", "overcast"}

var tagWords = []string{
	"regression", "crash", "visual", "perf", "ux", "polish", "seams", "lod", "needs-repro", "blocker",
	"controller", "steam-deck", "multiplayer", "save-compat", "accessibility", "night", "shaders", "memory", "flaky", "audio-mix",
}

var milestones = []string{"alpha 0.4", "alpha 0.5", "alpha 0.6", "beta 1", "demo", "launch"}

var taskVerbs = []string{"Add", "Tune", "Rework", "Split", "Profile", "Document", "Clean up", "Cache", "Batch", "Expose a setting for"}

var ideaOpeners = []string{"What if", "Idea:", "Consider", "Maybe"}

var ideaEndings = []string{
	"reacted to the season", "had a photo mode", "showed on the map", "could be shared with friends", "used the new noise",
	"were streamed in the background", "had an accessibility option", "came with a tutorial hint",
}

var fixes = []string{
	"clamp the normals to the shared edge", "sort the pass after the terrain", "reuse the mesh buffer instead of reallocating it",
	"rebuild the LOD chain when the chunk reloads", "read the setting once at startup", "round the tile position before the lookup",
	"move the work off the main thread", "keep the state in the save header", "retry the request with backoff",
	"drop the stale cache entry on reload", "use the shared sampler", "fix the off-by-one in the loop bound",
	"guard against the empty list", "precompute the table at load", "bind the buffer before the draw",
}

var findings = []string{
	"the chunk border uses the neighbour's old heights", "the shader reads the wrong mip", "the timer is not reset on load",
	"two systems write the same flag", "the list is rebuilt every frame", "the save skips the last chunk",
	"the controller path never sees the event", "the noise is sampled in the wrong space", "a float compare fails at large coordinates",
}

var ownerRemarks = []string{
	"Still there for me", "Better, but not gone", "Looks right now", "Happens again after a reload",
	"Also seen at the harbour", "Only at night, it seems", "Much better, thanks", "Same on the Steam Deck",
	"Can't tell the difference", "This blocks the demo", "Not urgent, park it if you need to",
}

var agentNames = []string{"claude", "codex", "opencode", "gemini", "qwen", "kimi"}

var stepVerbs = []string{
	"Reproduce", "Write a test for", "Find the cause of", "Fix", "Refactor", "Measure", "Check", "Clean up", "Document",
	"Verify", "Profile", "Add logging around",
}

var verifications = []string{
	"unit test plus a screenshot at the location", "the repro save no longer shows it", "frame time stays under 16 ms",
	"replay the recorded input", "visual diff against the golden image", "run the soak test for an hour",
}

var logLines = []string{
	"WARN chunk 12,-4 rebuilt twice in one frame", "ERROR shader compile: missing define FOG_HEIGHT",
	"INFO autosave wrote 214 chunks in 380 ms", "WARN audio voice limit reached (64)", "ERROR nav: no path from spawn",
	"INFO gc pause 38 ms", "WARN texture streaming budget exceeded by 112 MB",
}
