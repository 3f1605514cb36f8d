// The gateway, over grpc-web: one client for the whole page, and the guest session.
//
// The session token lives in memory and in sessionStorage only (it survives a reload of this
// tab, and dies with the tab); never in localStorage or a cookie. An account's refresh token
// lives beside it (ARCHITECTURE.md, "Web client sessions"): account.ts trades it for a new
// access token before the old one expires.

import { type Client, Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Gateway } from "./gen/ludus/v1/gateway_pb.js";

export interface Session {
  token: string;
  playerId: string;
  name: string;
  expiresAtMs: number;
  // A registered account (a guest otherwise): only accounts host rooms (Ping44).
  account?: boolean;
  // Accounts: the single-use refresh token and its term, and when the access token came
  // (the refresh is due at half its life, or a minute before its end, whichever is later).
  refreshToken?: string;
  refreshExpiresAtMs?: number;
  obtainedAtMs?: number;
}

const SESSION_KEY = "ludus.session";

let session: Session | undefined = loadSession();

function loadSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(SESSION_KEY);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Session;
    if (typeof parsed.token !== "string") return undefined;
    // An expired access token is still worth keeping while its refresh token is good.
    const usable = Math.max(parsed.expiresAtMs, parsed.refreshToken ? (parsed.refreshExpiresAtMs ?? 0) : 0);
    if (usable < Date.now()) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

export function currentSession(): Session | undefined {
  return session;
}

export function setSession(next: Session | undefined): void {
  session = next;
  if (next) sessionStorage.setItem(SESSION_KEY, JSON.stringify(next));
  else sessionStorage.removeItem(SESSION_KEY);
}

const bearer: Interceptor = (next) => (request) => {
  if (session) request.header.set("authorization", `Bearer ${session.token}`);
  return next(request);
};

// Where the gateway is: the page's own host, on the port `/config.json` names (the
// all-in-one binary serves it), over https when it says the gateway serves TLS;
// `?gateway=http://host:port` overrides it.
async function gatewayUrl(): Promise<string> {
  const override = new URLSearchParams(location.search).get("gateway");
  if (override) return override;
  const response = await fetch("config.json", { cache: "no-store" });
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  const config = (await response.json()) as { gatewayPort?: number; gatewayScheme?: string };
  if (!config.gatewayPort) throw new Error("config.json names no gatewayPort");
  const host = location.hostname.includes(":") ? `[${location.hostname}]` : location.hostname;
  return `${config.gatewayScheme ?? location.protocol}//${host}:${config.gatewayPort}`;
}

export type GatewayClient = Client<typeof Gateway>;

let client: GatewayClient | undefined;

export async function gateway(): Promise<GatewayClient> {
  if (!client) {
    const transport = createGrpcWebTransport({
      baseUrl: await gatewayUrl(),
      useBinaryFormat: true,
      interceptors: [bearer],
    });
    client = createClient(Gateway, transport);
  }
  return client;
}

// The text a refusal shows: the server's own message, which starts with the rule id
// ("C3: H8 is already taken").
export function refusalText(error: unknown): string {
  const e = ConnectError.from(error);
  return e.rawMessage || Code[e.code];
}

export function errorCode(error: unknown): Code {
  return ConnectError.from(error).code;
}

// What a call may fail with on the way (a lost or stalled connection, a busy server), not as
// the server's answer to it: worth trying again after a while.
export function failedOnTheWay(error: unknown): boolean {
  const code = errorCode(error);
  return code === Code.Unavailable || code === Code.Unknown || code === Code.Canceled || code === Code.DeadlineExceeded;
}

// A read a page cannot show itself without: one that has not answered by then is abandoned
// and tried again, so a request stuck on a dead connection does not leave the page waiting.
export const READ_TIMEOUT_MS = 15_000;

export { Code };
