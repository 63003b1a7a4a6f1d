// Navigation inside the Desk: the History API, link interception, "leave this page?" guards and
// Frappe's `route_options` (values handed to the next view: a new form's fields, a list's filters).
import { doctypeForSlug, doctypeInfo, slug } from "./boot.js";
import { Emitter } from "./lib/emitter.js";
import { APP, parseRoute, routeToUrl } from "./routes.js";

const events = new Emitter();
const guards = new Set();
let current = null;
let routeOptions = null;

function resolve() {
	return {
		...parseRoute(location.pathname, location.search, {
			doctypeForSlug,
			isSingle: (doctype) => Boolean(doctypeInfo(doctype)?.issingle),
		}),
		path: location.pathname,
		search: location.search,
	};
}

/** The route of the current location. */
export function currentRoute() {
	if (!current) current = resolve();
	return current;
}

/** Call `handler(route)` on every route change; returns the unsubscribe function. */
export function onRouteChange(handler) {
	return events.on("change", handler);
}

/** Register `guard()`: before leaving the current route it is awaited, and a false answer stays
 * (a dirty form asks first). Returns the function that removes it. */
export function addLeaveGuard(guard) {
	guards.add(guard);
	return () => guards.delete(guard);
}

async function mayLeave() {
	for (const guard of [...guards]) {
		if (!(await guard())) return false;
	}
	return true;
}

let shown = "";

function changed() {
	current = resolve();
	shown = location.pathname + location.search + location.hash;
	events.emit("change", current);
}

async function onPopState() {
	if (location.pathname !== new URL(shown, location.origin).pathname && !(await mayLeave())) {
		history.pushState(null, "", shown); // stay: the guard said no (back is undone)
		return;
	}
	changed();
}

/** Go to `url` (a path on this site). `replace` changes the history entry instead of adding one. */
export async function navigate(url, { replace = false, force = false } = {}) {
	const target = new URL(url, location.origin);
	if (target.origin !== location.origin) throw new Error(`not a Desk URL: ${url}`);
	if (!target.pathname.startsWith(APP)) {
		location.assign(target.href);
		return true;
	}
	const next = target.pathname + target.search + target.hash;
	const here = location.pathname + location.search + location.hash;
	if (next === here && !force) return true;
	if (!force && target.pathname !== location.pathname && !(await mayLeave())) return false;
	if (replace) history.replaceState(null, "", next);
	else history.pushState(null, "", next);
	changed();
	window.scrollTo(0, 0);
	return true;
}

/** Change the query string of the current entry without a new route (a list's filters). */
export function replaceSearch(search) {
	const next = location.pathname + (search || "") + location.hash;
	history.replaceState(null, "", next);
	current = resolve();
	shown = next;
}

/** Show `url` in the address bar for the view already on screen (a new document just saved gets
 * its name in the URL) without a route change. */
export function replaceLocation(url) {
	history.replaceState(null, "", url);
	current = resolve();
	shown = location.pathname + location.search + location.hash;
}

/** Frappe's `frappe.set_route(...)`: ("List", dt, filters), ("Form", dt, name), a path, ... */
export function setRoute(...args) {
	return navigate(routeToUrl(args, slug));
}

/** Frappe's `frappe.get_route()`: ["List", dt], ["Form", dt, name], ["query-report", name], [""]. */
export function getRoute() {
	const route = currentRoute();
	if (route.kind === "list") return ["List", route.doctype];
	if (route.kind === "form") return ["Form", route.doctype, route.name || `new-${slug(route.doctype)}`];
	if (route.kind === "query-report") return ["query-report", route.report];
	return [""];
}

/** Values for the next view (Frappe's `frappe.route_options`); taken once by the view that reads them. */
export function setRouteOptions(options) {
	routeOptions = options && typeof options === "object" ? { ...options } : null;
}

export function takeRouteOptions() {
	const options = routeOptions;
	routeOptions = null;
	return options;
}

function onClick(event) {
	if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
		return;
	}
	const link = event.target.closest && event.target.closest("a[href]");
	if (!link || link.target || link.hasAttribute("download")) return;
	const url = new URL(link.href, location.href);
	if (url.origin !== location.origin || !url.pathname.startsWith(APP)) return;
	// a link to a place on this page (`#main`): the browser scrolls and moves the focus there
	if (url.hash && url.pathname === location.pathname && url.search === location.search) return;
	event.preventDefault();
	navigate(url.pathname + url.search + url.hash);
}

let started = false;

/** Listen to back/forward and to clicks on Desk links. */
export function startRouter() {
	if (started) return;
	started = true;
	document.addEventListener("click", onClick);
	window.addEventListener("popstate", onPopState);
	current = resolve();
	shown = location.pathname + location.search + location.hash;
}

/** Where the user is, as a `redirect-to` value for the login page. */
export function here() {
	return location.pathname + location.search;
}

