// The one import point for rendering: Preact (vendored) with htm's tagged templates. Values
// interpolated into `html` become text nodes or attribute values, never markup: the Desk never
// parses a server value as HTML.
import { Fragment, createContext, createPortal, createRef, h, render } from "../../vendor/preact.js";
import {
	useCallback,
	useContext,
	useEffect,
	useId,
	useLayoutEffect,
	useMemo,
	useReducer,
	useRef,
	useState,
} from "../../vendor/preact-hooks.js";
import htm from "../../vendor/htm.js";

export const html = htm.bind(h);
export {
	Fragment,
	createContext,
	createPortal,
	createRef,
	h,
	render,
	useCallback,
	useContext,
	useEffect,
	useId,
	useLayoutEffect,
	useMemo,
	useReducer,
	useRef,
	useState,
};

/** A hook that re-renders the component whenever `subscribe(callback)` calls back. */
export function useSubscription(subscribe) {
	const [, bump] = useReducer((n) => n + 1, 0);
	useEffect(() => subscribe(() => bump()), [subscribe]);
}
