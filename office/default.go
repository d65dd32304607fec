package office

import "strconv"

// Default is the office desk ships with: a room of 22×14 tiles with a door
// in its top wall, two wings of three desks each (two seats a desk, a
// computer facing each seat: room for twelve agents) and a lounge. Its
// revision is 0: it has never been saved.
func Default() *Layout {
	const cols, rows = 22, 14
	l := &Layout{
		Version: Version, Cols: cols, Rows: rows,
		Tiles:     make([]int, cols*rows),
		Colors:    make([]string, cols*rows),
		Furniture: []Item{},
	}
	at := func(c, r int) int { return r*cols + c }
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			t := FloorFirst // planks
			switch {
			case r == 0 || r == rows-1 || c == 0 || c == cols-1:
				t = Wall
			case r >= 9:
				t = FloorFirst + 2 // the lounge's carpet
				l.Colors[at(c, r)] = "#7f8fa6"
			case c == 10 || c == 11:
				t = FloorFirst + 6 // a concrete aisle from the door
			}
			l.Tiles[at(c, r)] = t
		}
	}
	n := 0
	add := func(typ string, c, r, rot int, color string) {
		n++
		l.Furniture = append(l.Furniture, Item{UID: typ + "-" + strconv.Itoa(n), Type: typ, Col: c, Row: r, Rot: rot, Color: color})
	}
	add("door", 10, 0, 0, "")
	add("whiteboard", 3, 0, 0, "")
	add("whiteboard", 16, 0, 0, "")
	add("shelf", 1, 1, 0, "")
	add("shelf", 19, 1, 0, "#8a5a3c")
	add("plant", 7, 1, 0, "")
	add("plant", 14, 1, 0, "")
	// Each desk seats two: one behind it, facing down, and one in front,
	// facing up; each faces a computer on the desk.
	for _, c := range []int{2, 5, 8, 12, 15, 18} {
		add("desk", c, 4, 0, "")
		add("computer", c, 4, 2, "")
		add("computer", c+1, 4, 0, "")
		add("chair", c, 3, 0, "")
		add("chair", c+1, 5, 2, "")
	}
	add("sofa", 3, 11, 0, "")
	add("sofa", 6, 11, 0, "#6a8f5a")
	add("plant", 1, 12, 0, "")
	add("cooler", 20, 10, 0, "")
	add("plant", 20, 12, 0, "")
	add("shelf", 15, 12, 0, "")

	wing := func(id, name, color string, c0, c1 int) Area {
		a := Area{ID: id, Name: name, Color: color, Tiles: []int{}}
		for r := 2; r <= 7; r++ {
			for c := c0; c <= c1; c++ {
				a.Tiles = append(a.Tiles, at(c, r))
			}
		}
		return a
	}
	l.Areas = []Area{
		wing("west", "West wing", "#e0a458", 1, 9),
		wing("east", "East wing", "#5fa8d3", 12, 20),
	}
	return l
}
