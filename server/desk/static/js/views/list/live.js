// A list's realtime updates (desk.md §3, §7): while a list is shown, its doctype's room is joined and
// every `list_update` of the doctype (another user's insert, save or delete, or a bulk change)
// reloads it, at most once per DEBOUNCE_MS so a burst of changes costs one reload. After a lost
// Socket.IO connection comes back, the list reloads too: updates sent meanwhile were missed.
import { useEffect, useRef } from "../../lib/html.js";
import { on, watchDoctype } from "../../realtime.js";

export const DEBOUNCE_MS = 300;

/** Call `refresh()` (the latest one given) when the list of `doctype` changed on the server. */
export function useListUpdates(doctype, refresh) {
	const latest = useRef(refresh);
	latest.current = refresh;
	useEffect(() => {
		let timer = null;
		const schedule = () => {
			clearTimeout(timer);
			timer = setTimeout(() => latest.current(), DEBOUNCE_MS);
		};
		const leave = watchDoctype(doctype);
		const stopUpdates = on("list_update", (data) => {
			if (!data || data.doctype === doctype) schedule();
		});
		const stopReconnect = on("reconnect", schedule);
		return () => {
			clearTimeout(timer);
			stopUpdates();
			stopReconnect();
			leave();
		};
	}, [doctype]);
}
