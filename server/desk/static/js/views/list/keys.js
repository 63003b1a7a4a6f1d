// Keyboard use of the list (desk.md §8): from a row's link, ArrowDown/ArrowUp move to the next or
// previous row, Home/End to the first or last; Enter opens the row (it is a link). Pure: `node --test`.

/** The row index to focus after `key` on row `index` of `count` rows, or null when the key is not ours. */
export function rowMove(key, index, count) {
	if (count <= 0) return null;
	switch (key) {
		case "ArrowDown":
			return Math.min(index + 1, count - 1);
		case "ArrowUp":
			return Math.max(index - 1, 0);
		case "Home":
			return 0;
		case "End":
			return count - 1;
		default:
			return null;
	}
}

/** The sort after a click on the header of `fieldname`: the same column flips its order, another
 * starts descending (the newest, largest or last first, as Frappe's lists do). */
export function sortAfterHeaderClick(sort, fieldname) {
	if (sort.fieldname === fieldname) return { fieldname, order: sort.order === "asc" ? "desc" : "asc" };
	return { fieldname, order: "desc" };
}

/** The `aria-sort` value of a column header under `sort`. */
export function ariaSort(sort, fieldname) {
	if (sort.fieldname !== fieldname) return undefined;
	return sort.order === "asc" ? "ascending" : "descending";
}
