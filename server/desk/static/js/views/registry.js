// Which module renders which kind of route (routes.js). Views load on first use (dynamic import), so
// a cold start fetches only what the first page needs. Register a new kind with `registerView`
// (e.g. "query-report": views/report/report_view.js).
const loaders = new Map();

export function registerView(kind, loader) {
	loaders.set(kind, loader);
}

export function viewLoader(kind) {
	return loaders.get(kind) || null;
}

registerView("home", () => import("./home.js"));
registerView("list", () => import("./list/list_view.js"));
registerView("form", () => import("./form/form_view.js"));
registerView("query-report", () => import("./report/report_view.js"));
registerView("report-view", () => import("./report_builder/report_builder_view.js"));
registerView("customize-form", () => import("./customize/customize_form.js"));
