import { render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { humanSize, mergeFiles, MessageFiles } from "../components/Attachments";

describe("Attachments", () => {
  it("sizes read like the engine's and a path is attached once", () => {
    expect([512, 12_345, 4_500_000].map(humanSize)).toEqual(["512 B", "12.3 kB", "4.5 MB"]);
    const file = (path: string) => ({ path, name: path, size: 1, error: null });
    expect(mergeFiles([file("/a")], [file("/a"), file("/b"), file("/b")]).map((f) => f.path)).toEqual(["/a", "/b"]);
  });

  it("a sent message lists its copied files with sizes, or an older message's paths", () => {
    const attachment = { name: "orders.csv", size: 24, source: "/home/u/orders.csv" };
    const { unmount } = render(<MessageFiles attachments={[attachment]} files={["/home/u/orders.csv"]} />);
    expect(screen.getByTestId("message-files").textContent).toContain("orders.csv 24 B");
    unmount();
    render(<MessageFiles files={["report.xlsx"]} />);
    expect(screen.getByTestId("message-files").textContent).toContain("report.xlsx");
  });

  it("shows nothing without files", () => {
    render(<MessageFiles attachments={[]} files={[]} />);
    expect(screen.queryByTestId("message-files")).toBeNull();
  });
});
