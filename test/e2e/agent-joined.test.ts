import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiOk, startServe, startServes, waitFor, type Served } from '../helpers/serve.js';
import { pgDatabase, pgQuery } from '../helpers/pg-url.js';
import { agentFixture, location, sqliteRows, sqliteSessions, startAgent, type Agent, type SessionRow } from '../helpers/agent.js';
import { INITIAL_ALERT_MEMORY, stepAlertState, type AlertType, type SessionVerdict } from '../../src/server/runs/alert-state.js';

/**
 * A check run in a public location (by the service) and a private one (by a real agent): each due
 * time is ONE session of both locations, its verdict and alerts taken once over both; a killed
 * agent's part is recorded as not run and the session completes over what ran.
 */

interface ResultRow {
  id: string;
  checkId: string;
  resultType: string;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
  checkRunId: number;
  sequenceId: string;
}

/** The check's target (answers `status`) and a webhook receiver of alerts, on one local server. */
async function targetAndHook(): Promise<{ url: string; setStatus(code: number): void; alerts: Array<{ alertType: string; runLocation: string }>; close(): Promise<void> }> {
  let status = 200;
  const alerts: Array<{ alertType: string; runLocation: string }> = [];
  const srv: Server = createServer((req, res) => {
    if (req.url === '/hook') {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString('utf8')));
      req.on('end', () => {
        const a = JSON.parse(body) as { alertType: string; runLocation: string };
        alerts.push({ alertType: a.alertType, runLocation: a.runLocation });
        res.end('ok');
      });
      return;
    }
    res.statusCode = status;
    res.end(status === 200 ? 'ok' : 'down');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(srv.address() as { port: number }).port}`,
    setStatus: (code) => void (status = code),
    alerts,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A session's verdict over the slots that ran (not-run slots left out), as the service takes it. */
function verdictOf(session: SessionRow & { sequences: Record<string, string> }, results: ResultRow[]): SessionVerdict {
  const skipped = new Set((session.notRunLocations ?? []).map((slot) => session.sequences[slot]));
  const finals = session.resultIds!.map((id) => results.find((r) => r.id === id)!).filter((r) => r.resultType === 'FINAL');
  const ran = finals.filter((r) => !skipped.has(r.sequenceId));
  const judged = ran.length > 0 ? ran : finals;
  if (judged.some((r) => r.hasFailures || r.hasErrors)) return 'failed';
  return judged.some((r) => r.isDegraded === true) ? 'degraded' : 'passed';
}

type Session = SessionRow & { sequences: Record<string, string>; startedAt: string; checkRunId: number };

/** Creates the location's check of one public and one private location, alerting the hook. */
async function mixedCheck(s: Served, targetUrl: string): Promise<string> {
  const channel = await apiOk(s, 'POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'hook', url: `${targetUrl}/hook`, method: 'POST' }, sendRecovery: true, sendFailure: true, sendDegraded: true });
  const check = await apiOk(s, 'POST', '/v1/checks/url', {
    name: 'mixed',
    frequency: 1,
    activated: true,
    runParallel: true,
    locations: ['eu-west-1'],
    privateLocations: ['site-a'],
    request: { url: `${targetUrl}/health` },
    // A loaded machine answers slowly at times: not degraded for that (the transitions are the target's).
    degradedResponseTime: 30000,
    maxResponseTime: 30000,
    alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
  });
  return check.id as string;
}

/** The alerts the completed sessions' verdicts give, in the order the sessions completed (one per transition). */
function alertsOf(sessions: Session[], results: ResultRow[]): { ordered: Session[]; verdicts: SessionVerdict[]; expected: AlertType[] } {
  const ordered = sessions.filter((x) => x.completedAt).sort((x, y) => Date.parse(x.completedAt!) - Date.parse(y.completedAt!));
  const verdicts = ordered.map((x) => verdictOf(x, results));
  let memory = INITIAL_ALERT_MEMORY;
  const expected: AlertType[] = [];
  for (const v of verdicts) {
    const step = stepAlertState(memory, v, {}, 0, 60_000);
    memory = step.memory;
    expected.push(...step.events.map((e) => e.alertType));
  }
  return { ordered, verdicts, expected };
}

/**
 * Each session of the check is of both locations; each completed one holds both FINAL results
 * under its run id; the alerts delivered are those the completed sessions' verdicts give, in the
 * order they completed (one per transition). Returns the completed sessions.
 */
function expectJoined(sessions: Session[], results: ResultRow[], alerts: AlertType[]): Session[] {
  expect(sessions.length).toBeGreaterThan(3);
  for (const x of sessions) {
    expect([...x.runLocations].sort()).toEqual(['eu-west-1', 'site-a']);
    expect(x.privateSlots).toEqual(['site-a']);
  }
  const completed = sessions.filter((x) => x.completedAt);
  for (const x of completed) {
    expect([...x.finishedLocations!].sort()).toEqual(['eu-west-1', 'site-a']);
    const finals = x.resultIds!.map((id) => results.find((r) => r.id === id)!).filter((r) => r.resultType === 'FINAL');
    expect(finals).toHaveLength(2);
    expect(finals.every((r) => r.checkRunId === x.checkRunId)).toBe(true);
    expect(new Set(finals.map((r) => r.sequenceId))).toEqual(new Set([x.sequences['eu-west-1'], x.sequences['site-a']]));
  }
  const { ordered, verdicts, expected } = alertsOf(sessions, results);
  // On a failure, the completed sessions in order: when, the verdict, the parts not run.
  const trail = ordered.map((x, i) => `${x.completedAt} ${verdicts[i]}${x.notRunLocations?.length ? ` (not run: ${x.notRunLocations.join(', ')})` : ''}`).join('\n');
  expect(alerts, `alerts delivered against the completed sessions:\n${trail}`).toEqual(expected);
  return completed;
}

/**
 * The target passes for `passingMs` and until `ready` (the agent has called in), fails until a
 * failure alert arrives, then passes until a recovery does (2 s after each change).
 */
async function passFailPass(target: Awaited<ReturnType<typeof targetAndHook>>, passingMs: number, ready: Promise<unknown>): Promise<void> {
  await Promise.all([sleep(passingMs), ready]);
  target.setStatus(500);
  await waitFor(async () => (target.alerts.some((x) => x.alertType === 'ALERT_FAILURE') ? true : undefined), 60_000);
  await sleep(2000);
  target.setStatus(200);
  await waitFor(async () => (target.alerts.some((x) => x.alertType === 'ALERT_RECOVERY') ? true : undefined), 60_000);
  await sleep(2000);
}

// The two cases share nothing (each its target and receiver, its services, its state) and mostly
// wait on the simulated minutes: they run at once.
describe.concurrent('mac agent: one session per due time across public and private locations (--time-scale 60)', { timeout: 180_000 }, () => {
  const fx = agentFixture({ stateDir: true });

  it('one session id on both results, one alert per transition, a killed agent part recorded as not run with the session completed once', async () => {
    const target = await targetAndHook();
    const state = join(fx.dir, 'joined.db');
    // Leases and the queue bound short: a killed agent's runs are recorded as not run within seconds.
    const s = await startServe(['--time-scale', '60', '--state', state, '--rate-limit', '0/60', '--agent-lease', '3', '--agent-queue-timeout', '3']);
    const agents: Agent[] = [];
    try {
      const a = await location(s, 'site-a');
      const agent = startAgent(s, a.key);
      agents.push(agent);
      // The check is made while the agent starts (its private parts wait in the queue for it, or
      // are recorded as not run past the queue bound, which is allowed before the kill); the
      // passing phase lasts until the agent has called in.
      const checkId = await mixedCheck(s, target.url);
      const ready = waitFor(async () => ((await apiOk(s, 'GET', `/v1/private-locations/${a.id}`)).agents.length === 1 ? true : undefined));
      // Passing, failing, passing again: one failure alert and one recovery.
      await passFailPass(target, 4000, ready);
      // The agent dies: its part of each due time is recorded as not run once the queue bound
      // passes, and those sessions complete over the public part, which passes: no alert.
      const killedAt = Date.now();
      await agent.stop('SIGKILL');
      const mine = () => sqliteSessions(state).filter((x) => x.checkId === checkId) as Session[];
      // The parts the agent had claimed when it died are recorded as not run once their lease
      // and then the queue bound pass (6 s after the claim): an agent lagging on a loaded machine
      // claims runs seconds after they were due, up to the moment it dies. Waited for, with a
      // part of a due time after the kill recorded as not run, before the stop (which leaves the
      // queue as it is): the sessions opened before the kill complete first.
      const settled = (rows: Session[]) =>
        rows.some((x) => Date.parse(x.startedAt) > killedAt + 1000 && (x.notRunLocations ?? []).includes('site-a') && x.completedAt) &&
        rows.every((x) => Date.parse(x.startedAt) >= killedAt || x.completedAt);
      await waitFor(async () => (settled(mine()) ? true : undefined), 60_000);
      await sleep(3000);
      // Deliveries lag on a loaded machine: the stop waits (30 s at most) for the alerts of the
      // sessions completed so far, so that the comparison below is of what was decided, not of
      // what was on its way.
      const delivered = () => target.alerts.map((x) => x.alertType).join();
      await waitFor(async () => (delivered() === alertsOf(mine(), sqliteRows<ResultRow>(state, 'checkResults')).expected.join() ? true : undefined), 30_000).catch(() => undefined);
      const alertsBeforeStop = target.alerts.length;
      const stopAskedAt = Date.now();
      await s.stop();
      const stoppedAt = Date.now();

      const sessions = sqliteSessions(state).filter((x) => x.checkId === checkId) as Session[];
      const results = sqliteRows<ResultRow>(state, 'checkResults').filter((r) => r.checkId === checkId);
      // One session per due time, of both locations, both results under its run id; the alerts
      // delivered are those its verdicts give, in the order sessions completed: one per transition.
      const completed = expectJoined(sessions, results, target.alerts.map((x) => x.alertType as AlertType));
      expect(sessions.length).toBeGreaterThan(5);
      // Every session completed but those the service stopped under (the last queue bound). On a
      // failure: when each open one started against the kill and the stop, and its queued run.
      const open = sessions.filter((x) => !x.completedAt && Date.parse(x.startedAt) < stoppedAt - 8000);
      const queued = sqliteRows<{ sessionId?: string; availableAt: string; claims: number }>(state, 'privateLocationRuns');
      const why = open.map((x) => {
        const q = queued.find((r) => r.sessionId === x.checkSessionId);
        const at = Date.parse(x.startedAt);
        return `${x.checkSessionId} started ${at - killedAt} ms after the kill, ${stoppedAt - at} ms before the stop (asked ${stoppedAt - stopAskedAt} ms before it ended); queued run: ${q ? `available ${Date.parse(q.availableAt) - stoppedAt} ms after the stop, ${q.claims} given back` : 'none'}`;
      });
      expect(open, `open sessions:\n${why.join('\n')}\nservice output:\n${s.log().slice(-4000)}`).toEqual([]);
      // Not run: a clear error, never a pass, and no agent named. Every due time after the kill is
      // not run (a dead agent runs nothing); before it the agent ran them, but for those it claimed
      // too late on a loaded machine (its lease or the queue bound passed first).
      const notRun = completed.filter((x) => (x.notRunLocations ?? []).includes('site-a'));
      for (const x of notRun) {
        expect(x.agentRuns!['site-a'].agentId).toBeNull();
        const privateFinal = results.find((r) => r.sequenceId === x.sequences['site-a'] && r.resultType === 'FINAL')!;
        expect(privateFinal.hasErrors).toBe(true);
      }
      const afterKill = completed.filter((x) => Date.parse(x.startedAt) > killedAt + 1000);
      expect(afterKill.length).toBeGreaterThan(0);
      for (const x of afterKill) {
        expect(notRun).toContain(x);
        // Over what ran, the public part, which passes: the not-run parts alerted no one.
        expect(verdictOf(x, results)).toBe('passed');
      }
      expect(completed.filter((x) => x.agentRuns?.['site-a']?.agentId).length).toBeGreaterThan(3);
      expect(target.alerts.filter((x) => x.alertType === 'ALERT_FAILURE').length).toBeGreaterThanOrEqual(1);
      expect(target.alerts.filter((x) => x.alertType === 'ALERT_RECOVERY').length).toBeGreaterThanOrEqual(1);
      expect(target.alerts.length).toBe(alertsBeforeStop);
    } finally {
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await s.stop('SIGKILL');
      await target.close();
    }
  });

  it('two instances on one PostgreSQL, the agent at the other one: the parts recorded by different instances make one session, completed once', async () => {
    const target = await targetAndHook();
    const db = pgDatabase();
    const args = ['--time-scale', '60', '--database', db, '--rate-limit', '0/60'];
    const [one, two] = await startServes(args, args);
    const agents: Agent[] = [];
    try {
      const a = await location(one, 'site-a');
      agents.push(startAgent(two, a.key));
      // As in the case above, the check is made while the agent starts.
      const checkId = await mixedCheck(one, target.url);
      const ready = waitFor(async () => ((await apiOk(one, 'GET', `/v1/private-locations/${a.id}`)).agents.length === 1 ? true : undefined));
      await passFailPass(target, 4000, ready);
      expect(await agents[0].stop()).toBe(0);
      await Promise.all([one.stop(), two.stop()]);
      const rows = async <T>(kind: string) => (await pgQuery<{ data: string }>(db, 'SELECT data FROM records WHERE kind = $1', [kind])).map((r) => JSON.parse(r.data) as T);
      const sessions = (await rows<Session>('checkSessions')).filter((x) => x.checkId === checkId);
      const results = (await rows<ResultRow>('checkResults')).filter((r) => r.checkId === checkId);
      const completed = expectJoined(sessions, results, target.alerts.map((x) => x.alertType as AlertType));
      expect(completed.length).toBeGreaterThan(3);
      expect(target.alerts.filter((x) => x.alertType === 'ALERT_FAILURE').length).toBeGreaterThanOrEqual(1);
      // Both instances claimed due times: sessions opened on one were finished by the agent's result on the other.
      const claims = await pgQuery<{ instance: string }>(db, 'SELECT instance FROM run_claims WHERE check_id = $1', [checkId]);
      expect(new Set(claims.map((c) => c.instance)).size).toBe(2);
    } finally {
      await Promise.all(agents.map((x) => x.stop('SIGKILL')));
      await Promise.all([one.stop('SIGKILL'), two.stop('SIGKILL')]);
      await target.close();
    }
  });
});
