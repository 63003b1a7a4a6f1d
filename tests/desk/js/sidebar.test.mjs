// The form sidebar's pure parts: comments as text and HTML, the timeline's order, upload sizes.
import assert from "node:assert/strict";
import test from "node:test";
import { loadBoot } from "../../../server/desk/static/js/boot.js";
import { htmlToText, textToHtml } from "../../../server/desk/static/js/views/form/comments.js";
import { moreComments, timelineEntries } from "../../../server/desk/static/js/views/form/timeline.js";
import { formatBytes, sizeError } from "../../../server/desk/static/js/upload.js";

test("a typed comment becomes escaped HTML, and back", () => {
	assert.equal(textToHtml("a <b>bold</b> & 'x'\nsecond"), "<p>a &lt;b&gt;bold&lt;/b&gt; &amp; &#39;x&#39;<br>second</p>");
	assert.equal(textToHtml("  padded  "), "<p>padded</p>");
	for (const text of ["plain", "a <b>bold</b> & 'x'\nsecond line", "<script>alert(1)</script>", "x < y > z"]) {
		assert.equal(htmlToText(textToHtml(text)), text);
	}
	// HTML from other clients keeps its text, paragraphs on lines of their own; scripts go
	assert.equal(htmlToText("<p>one</p><p>two <i>it</i></p><script>evil()</script>"), "one\ntwo it");
	assert.equal(htmlToText("<ul><li>a</li><li>b</li></ul>"), "a\nb");
});

test("the timeline mixes versions and comments, newest first", () => {
	const versions = [{ name: "v2", creation: "2026-01-02 10:00:00.000000" }, { name: "v1", creation: "2026-01-01 09:00:00.000000" }];
	const comments = [{ name: "c1", creation: "2026-01-01 12:00:00.000000" }, { name: "c2", creation: "2026-01-03 08:00:00.000000" }];
	assert.deepEqual(timelineEntries(versions, comments).map((e) => e.key), ["c-c2", "v-v2", "c-c1", "v-v1"]);
	assert.deepEqual(timelineEntries(undefined, null), []);
	assert.equal(moreComments({ comments: [{}, {}], total_comments: 2 }), null);
	assert.equal(moreComments({ comments: [{}, {}], total_comments: 130 }), "The newest 2 of 130 comments are shown");
	assert.equal(moreComments({}), null);
});

test("uploads over the limit are refused before they are sent", () => {
	assert.equal(formatBytes(512), "512 B");
	assert.equal(formatBytes(1536), "1.5 KB");
	assert.equal(formatBytes(10 * 1024 * 1024), "10 MB");
	loadBoot({ user: "a@x", max_file_size: 1024 });
	const error = sizeError({ name: "big.bin", size: 2048 });
	assert.equal(error.status, 413);
	assert.equal(error.message, "big.bin is 2 KB, over the upload limit of 1 KB");
	assert.equal(sizeError({ name: "small.bin", size: 1024 }), null);
	assert.equal(sizeError({ name: "any.bin", size: 1e12 }, 0), null); // no limit known: the server decides
});
