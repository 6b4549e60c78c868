// A list that puts only the rows in view (and a few either side) in the page: rows of one
// fixed height, a spacer above them, the whole list's height kept so the scrollbar is true.
// Near the end it asks for more (the next page). Sizes are set through the CSSOM, which the
// window's CSP (no inline style attributes) allows.
import { Fragment, type ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

/** When the element cannot say (no layout, as in tests): the height assumed for the view. */
const FALLBACK_VIEW_PX = 600;

export interface VirtualListProps<T> {
  items: T[];
  /** Every row's height in pixels: `render` gives an `<li>` the stylesheet makes that high. */
  rowHeight: number;
  keyOf: (item: T) => string;
  render: (item: T, index: number) => ComponentChildren;
  /** Called when the rows in view come within `overscan` of the end. */
  onNearEnd?: () => void;
  overscan?: number;
  class?: string;
  label?: string;
}

/** The rows to draw for a view of `viewPx` scrolled to `scrollTop`: [start, end). */
export function visibleRange(count: number, rowHeight: number, scrollTop: number, viewPx: number, overscan: number): [number, number] {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const shown = Math.ceil(viewPx / rowHeight) + 1;
  return [Math.max(0, first - overscan), Math.min(count, first + shown + overscan)];
}

export function VirtualList<T>({ items, rowHeight, keyOf, render, onNearEnd, overscan = 8, label, ...props }: VirtualListProps<T>) {
  const outer = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLUListElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const viewPx = outer.current?.clientHeight || FALLBACK_VIEW_PX;
  const [start, end] = visibleRange(items.length, rowHeight, scrollTop, viewPx, overscan);
  useLayoutEffect(() => {
    if (!inner.current) return;
    inner.current.style.height = `${items.length * rowHeight}px`;
    inner.current.style.paddingTop = `${start * rowHeight}px`;
  });
  useLayoutEffect(() => {
    if (onNearEnd && end >= items.length - overscan) onNearEnd();
  }, [end, items.length]);
  return (
    <div class={`virtual-list ${props.class ?? ""}`} ref={outer} onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}>
      <ul class="virtual-rows" ref={inner} aria-label={label}>
        {items.slice(start, end).map((item, offset) => (
          <Fragment key={keyOf(item)}>{render(item, start + offset)}</Fragment>
        ))}
      </ul>
    </div>
  );
}
