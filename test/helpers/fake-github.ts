import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One issue comment as the fake GitHub API stores it. */
export interface FakeComment {
  id: number;
  issue: string; // "owner/repo#number"
  body: string;
  html_url: string;
  user: { login: string; type: string };
  created_at: string;
  updated_at: string;
}

/** A request the fake GitHub API received. */
export interface FakeRequest {
  method: string;
  path: string;
  body?: unknown;
  authorization?: string;
}

/** A local stand-in for the GitHub REST API endpoints the action uses. */
export interface FakeGitHub {
  /** Base URL to put in GITHUB_API_URL. */
  url: string;
  comments: FakeComment[];
  requests: FakeRequest[];
  /** Answer writes with 403, as GitHub does for the read-only token of a fork's pull request. */
  readOnly: boolean;
  /** Page size the list endpoint uses at most (GitHub: per_page, max 100). */
  maxPerPage: number;
  /** When set, every request is answered with this status (an outage, a revoked token). */
  failStatus?: number;
  /**
   * The login the token authenticates as (a personal or app token): `GET /user` answers it and
   * new comments are written by it. Unset: the default GITHUB_TOKEN, for which `GET /user`
   * answers 403 "Resource not accessible by integration" and comments are by github-actions[bot].
   */
  tokenLogin?: string;
  /** Adds a comment as if someone else had written it. */
  seed(issue: string, body: string, login?: string): FakeComment;
  /** Requests other than reads. */
  writes(): FakeRequest[];
  close(): Promise<void>;
}

const COMMENTS = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/;
const COMMENT = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/;

/**
 * Starts the fake GitHub API on 127.0.0.1 and a free port. It implements listing (paginated,
 * with a Link header), creating and updating issue comments, and 404s everything else.
 */
export async function startFakeGitHub(): Promise<FakeGitHub> {
  let nextId = 1000;
  const now = () => new Date().toISOString();
  const state = {
    comments: [] as FakeComment[],
    requests: [] as FakeRequest[],
    readOnly: false,
    maxPerPage: 100,
    failStatus: undefined as number | undefined,
    tokenLogin: undefined as string | undefined,
  };
  const add = (issue: string, body: string, login = 'github-actions[bot]'): FakeComment => {
    const id = nextId++;
    const [repoPath, number] = issue.split('#');
    const c: FakeComment = {
      id,
      issue,
      body,
      html_url: `https://github.com/${repoPath}/pull/${number}#issuecomment-${id}`,
      user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
      created_at: now(),
      updated_at: now(),
    };
    state.comments.push(c);
    return c;
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const raw = await readBody(req);
    const body = raw ? JSON.parse(raw) : undefined;
    state.requests.push({ method: req.method ?? '', path: url.pathname + url.search, body, authorization: req.headers.authorization });
    if (state.failStatus) return send(res, state.failStatus, { message: `fake failure ${state.failStatus}` });
    if (url.pathname === '/user' && req.method === 'GET') {
      if (state.tokenLogin === undefined) return forbidden(res, 'https://docs.github.com/rest/users/users#get-the-authenticated-user');
      return send(res, 200, { login: state.tokenLogin, id: 1, type: state.tokenLogin.endsWith('[bot]') ? 'Bot' : 'User' });
    }
    const list = COMMENTS.exec(url.pathname);
    const one = COMMENT.exec(url.pathname);
    if (list && req.method === 'GET') {
      const issue = `${list[1]}/${list[2]}#${list[3]}`;
      const all = state.comments.filter((c) => c.issue === issue);
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), state.maxPerPage);
      const page = Number(url.searchParams.get('page') ?? 1);
      const slice = all.slice((page - 1) * perPage, page * perPage);
      const headers: Record<string, string> = {};
      if (page * perPage < all.length) {
        const next = new URL(`http://${req.headers.host}${url.pathname}`);
        next.searchParams.set('per_page', String(perPage));
        next.searchParams.set('page', String(page + 1));
        headers.link = `<${next.href}>; rel="next"`;
      }
      return send(res, 200, slice, headers);
    }
    if (list && req.method === 'POST') {
      if (state.readOnly) return forbidden(res);
      return send(res, 201, add(`${list[1]}/${list[2]}#${list[3]}`, String(body?.body ?? ''), state.tokenLogin));
    }
    if (one && req.method === 'PATCH') {
      if (state.readOnly) return forbidden(res);
      const c = state.comments.find((x) => x.id === Number(one[3]));
      if (!c) return send(res, 404, { message: 'Not Found' });
      c.body = String(body?.body ?? '');
      c.updated_at = now();
      return send(res, 200, c);
    }
    send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    seed: add,
    writes: () => state.requests.filter((r) => r.method !== 'GET'),
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  }) as FakeGitHub;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(data));
}

function forbidden(res: ServerResponse, doc = 'https://docs.github.com/rest/issues/comments#create-an-issue-comment'): void {
  send(res, 403, {
    message: 'Resource not accessible by integration',
    documentation_url: doc,
    status: '403',
  });
}
