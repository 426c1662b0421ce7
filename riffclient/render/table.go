package render

import "strings"

// Table writes rows with their columns aligned; the first row is the
// heading, and the last column has no padding. Through a pipe each cell
// is whole, so a row can pass the width of a terminal. In a terminal the
// table fits the width: the widest column narrows first, down to the
// width of its heading, and a cell longer than its column is wrapped in
// it, so no word is cut.
func (p *Printer) Table(rows [][]Part) {
	widths := columnWidths(rows, p.width)
	for _, row := range rows {
		last := len(row) - 1
		for last > 0 && row[last].Text == "" {
			last--
		}
		cellLines := make([][]string, last+1)
		height := 1
		for i, c := range row[:last+1] {
			width := widths[i]
			if p.width <= 0 {
				width = 0
			}
			cellLines[i] = Wrap(c.Text, width)
			height = max(height, len(cellLines[i]))
		}
		for k := range height {
			var parts []Part
			for i, lines := range cellLines {
				text := ""
				if k < len(lines) {
					text = lines[k]
				}
				cell := row[i]
				cell.Text = text
				if i == len(cellLines)-1 {
					parts = append(parts, cell)
					break
				}
				parts = append(parts, cell, Plain(strings.Repeat(" ", max(0, widths[i]-Cells(text))+tableGap)))
			}
			// A wrapped row has empty cells at its end: no trailing spaces.
			for len(parts) > 0 && strings.TrimSpace(parts[len(parts)-1].Text) == "" {
				parts = parts[:len(parts)-1]
			}
			p.Line(parts...)
		}
	}
}

// tableGap is the space between two columns of a table.
const tableGap = 2

// minCell is the width under which the last column of a table narrows
// only with the others.
const minCell = 16

// columnWidths gives the width in cells of each column of rows: the
// widest cell, and in a terminal of width cells (more than 0) less, so
// that the table fits. The first row is the heading: no column gets
// narrower than its heading.
func columnWidths(rows [][]Part, width int) []int {
	var widths, floors []int
	for r, row := range rows {
		for i, p := range row {
			if i >= len(widths) {
				widths, floors = append(widths, 0), append(floors, 1)
			}
			widths[i] = max(widths[i], Cells(p.Text))
			if r == 0 {
				floors[i] = max(1, Cells(p.Text))
			}
		}
	}
	if width <= 0 || len(widths) == 0 {
		return widths
	}
	total := tableGap * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	// The last column (DETAIL) narrows first, to minCell; then the
	// widest column, so that a name breaks only in a narrow terminal.
	last := len(widths) - 1
	for total > width && widths[last] > max(floors[last], minCell) {
		widths[last]--
		total--
	}
	for total > width {
		widest := -1
		for i, w := range widths {
			if w > floors[i] && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			// Each column is at its heading: the table cannot be
			// narrower.
			break
		}
		widths[widest]--
		total--
	}
	return widths
}
