// Each test renders into a fresh document.
import { cleanup } from "@testing-library/preact";
import { afterEach } from "vitest";

afterEach(cleanup);
