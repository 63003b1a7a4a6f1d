// Uploads through `upload_file` (multipart), with progress: an XMLHttpRequest reports how much of the
// body has been sent (fetch cannot). A file over the server's limit (`boot.max_file_size`) is refused
// here, before a byte is sent; the server refuses it too (413) whatever the browser says.
import { ApiError, errorFrom } from "./api.js";
import { boot } from "./boot.js";
import { __ } from "./i18n.js";

const UNITS = ["B", "KB", "MB", "GB"];

/** A size in bytes as people read it: 512 B, 1.5 KB, 10 MB. Pure. */
export function formatBytes(bytes) {
	let value = Math.max(Number(bytes) || 0, 0);
	let unit = 0;
	while (value >= 1024 && unit < UNITS.length - 1) {
		value /= 1024;
		unit += 1;
	}
	const text = unit === 0 || value >= 10 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
	return `${text} ${UNITS[unit]}`;
}

/** The ApiError for a file over `limit` bytes, or null (no limit known: the server decides). Pure. */
export function sizeError(file, limit = boot.max_file_size) {
	const max = Number(limit);
	if (!max || !file || !(Number(file.size) > max)) return null;
	return new ApiError({
		status: 413,
		type: "MaxFileSizeReachedError",
		title: __("File too large"),
		message: __("{0} is {1}, over the upload limit of {2}", [file.name, formatBytes(file.size), formatBytes(max)]),
	});
}

function parse(text) {
	try {
		return text ? JSON.parse(text) : null;
	} catch {
		return text;
	}
}

/** Upload a file, attached to a document when `doctype`/`docname` are given: the new File record
 * ({name, file_url, file_name, ...}). `onProgress(percent)` follows the upload (0..100). */
export function uploadFile(file, { doctype, docname, isPrivate = false, onProgress } = {}) {
	const tooLarge = sizeError(file);
	if (tooLarge) return Promise.reject(tooLarge);
	const form = new FormData();
	form.append("file", file, file.name);
	form.append("file_name", file.name);
	form.append("is_private", isPrivate ? "1" : "0");
	if (doctype && docname) {
		form.append("doctype", doctype);
		form.append("docname", docname);
	}
	return new Promise((resolve, reject) => {
		const xhr = new XMLHttpRequest();
		xhr.open("POST", "/api/method/upload_file");
		xhr.setRequestHeader("Accept", "application/json");
		if (boot.csrf_token) xhr.setRequestHeader("X-Frappe-CSRF-Token", boot.csrf_token);
		if (onProgress) {
			xhr.upload.addEventListener("progress", (event) => {
				if (event.lengthComputable && event.total) onProgress(Math.round((event.loaded / event.total) * 100));
			});
		}
		xhr.addEventListener("load", () => {
			const data = parse(xhr.responseText);
			if (xhr.status >= 200 && xhr.status < 300) resolve(data && data.message);
			else reject(errorFrom(xhr.status, data));
		});
		const unreachable = () =>
			reject(new ApiError({ type: "NetworkError", message: __("The server cannot be reached. Check your connection and try again.") }));
		xhr.addEventListener("error", unreachable);
		xhr.addEventListener("abort", unreachable);
		xhr.send(form);
	});
}
