// A file made on the server (an export, an import template): POSTed like any call (with the CSRF
// token), answered as an attachment, saved through a temporary link under the server's file name.
// A refusal comes back as JSON and is thrown as an ApiError.
import { boot } from "./boot.js";
import { errorFrom } from "./api.js";

function fileNameOf(response, fallback) {
	const header = response.headers.get("Content-Disposition") || "";
	const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header);
	if (encoded) return decodeURIComponent(encoded[1]);
	const plain = /filename="([^"]+)"/i.exec(header);
	return plain ? plain[1] : fallback;
}

export function saveBlob(blob, fileName) {
	const url = URL.createObjectURL(blob);
	const link = document.createElement("a");
	link.href = url;
	link.download = fileName;
	document.body.appendChild(link);
	link.click();
	link.remove();
	setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** POST `args` to the whitelisted `method` and save the file it answers; the file's name. */
export async function downloadFile(method, args, fallbackName = "export") {
	const headers = { Accept: "*/*", "Content-Type": "application/json" };
	if (boot.csrf_token) headers["X-Frappe-CSRF-Token"] = boot.csrf_token;
	const response = await fetch(`/api/method/${method}`, {
		method: "POST", headers, credentials: "same-origin", body: JSON.stringify(args),
	});
	if (!response.ok) {
		const text = await response.text();
		let body = text;
		try {
			body = JSON.parse(text);
		} catch {
			// not JSON: the text is the message
		}
		throw errorFrom(response.status, body);
	}
	const name = fileNameOf(response, fallbackName);
	saveBlob(await response.blob(), name);
	return name;
}
