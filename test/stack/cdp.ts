/**
 * Headless Chromium driven over the DevTools protocol (a WebSocket; undici's client), for Web UI
 * pages that never go idle: a running workflow's page long-polls its history, so `--dump-dom` with a
 * virtual time budget never returns. Tests wait for what the page shows (`waitFor` re-evaluates an
 * expression until it holds), and see the page's network answers (`responses`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { WebSocket } from 'undici';
import { headlessArgs } from './chromium.js';

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export interface NetworkResponse {
  url: string;
  status: number;
  method?: string;
}

export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(method: string, params: unknown, sessionId?: string) => void>();

  private constructor(
    private readonly process: ChildProcess,
    private readonly socket: WebSocket,
  ) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: unknown;
        sessionId?: string;
      };
      if (message.id !== undefined) {
        const p = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) p?.reject(new Error(`DevTools: ${message.error.message}`));
        else p?.resolve(message.result);
      } else if (message.method) {
        for (const l of this.listeners) l(message.method, message.params, message.sessionId);
      }
    });
  }

  /** Starts `chromium` headless with a DevTools port of its own choosing, and connects. */
  static async launch(chromium: string, userDataDir: string): Promise<Browser> {
    const child = spawn(
      chromium,
      [
        ...headlessArgs(userDataDir),
        '--window-size=1400,900',
        '--remote-debugging-address=127.0.0.1',
        '--remote-debugging-port=0',
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const endpoint = await new Promise<string>((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString();
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
        if (match?.[1]) {
          child.stderr?.off('data', onData);
          child.stderr?.resume();
          resolve(match[1]);
        }
      };
      child.stderr?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`chromium exited (${code}) before DevTools listened`)));
      child.once('error', reject);
    });
    const socket = new WebSocket(endpoint);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error('DevTools socket failed')), { once: true });
    });
    return new Browser(child, socket);
  }

  send<T = unknown>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    const id = this.nextId++;
    const promise = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
    try {
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    } catch (error) {
      this.pending.delete(id);
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return promise;
  }

  onEvent(listener: (method: string, params: unknown, sessionId?: string) => void): void {
    this.listeners.add(listener);
  }

  async newPage(): Promise<Page> {
    const { targetId } = await this.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId,
      flatten: true,
    });
    const page = new Page(this, sessionId);
    this.onEvent((method, params, from) => {
      if (from !== sessionId) return;
      if (method === 'Network.requestWillBeSent') {
        const p = params as { requestId: string; request: { method: string } };
        page.methods.set(p.requestId, p.request.method);
      }
      if (method === 'Network.responseReceived') {
        const p = params as { requestId: string; response: { url: string; status: number } };
        const m = page.methods.get(p.requestId);
        page.responses.push({ url: p.response.url, status: p.response.status, ...(m ? { method: m } : {}) });
      }
    });
    await this.send('Network.enable', {}, sessionId);
    await this.send('Page.enable', {}, sessionId);
    await this.send('Runtime.enable', {}, sessionId);
    return page;
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.process.exitCode !== null || this.process.signalCode !== null) resolve();
      else this.process.once('exit', () => resolve());
    });
    // Chromium answers Browser.close and exits; if the socket is gone, it is killed instead.
    await this.send('Browser.close').catch(() => this.process.kill('SIGKILL'));
    this.socket.close();
    await exited;
  }
}

export class Page {
  /** Every response the page received (documents, scripts, API and codec calls), in order. */
  readonly responses: NetworkResponse[] = [];
  /** @internal request id → method */
  readonly methods = new Map<string, string>();

  constructor(
    private readonly browser: Browser,
    private readonly sessionId: string,
  ) {}

  async navigate(url: string): Promise<void> {
    await this.browser.send('Page.navigate', { url }, this.sessionId);
  }

  async evaluate<T>(expression: string): Promise<T> {
    const result = await this.browser.send<{
      result: { value?: T };
      exceptionDetails?: { text: string };
    }>('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, this.sessionId);
    if (result.exceptionDetails) throw new Error(`page: ${result.exceptionDetails.text}`);
    return result.result.value as T;
  }

  /** The page's visible text. */
  text(): Promise<string> {
    return this.evaluate<string>('document.body ? document.body.innerText : ""');
  }

  /**
   * Re-evaluates `predicate` (a function of the page's visible text, run here) until it holds, and
   * returns that text; throws with the last text seen after `timeoutMs`.
   */
  async waitForText(predicate: (text: string) => boolean, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      last = await this.text().catch(() => '');
      if (predicate(last)) return last;
      if (Date.now() > deadline)
        throw new Error(`the page never showed what was expected; it showed:\n${last.slice(0, 4000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Waits until the page has received a response that `predicate` accepts, and returns it. */
  async waitForResponse(
    predicate: (r: NetworkResponse) => boolean,
    timeoutMs: number,
  ): Promise<NetworkResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.responses.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('the page never received the expected response');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Clicks the first element whose visible text is exactly `text` (trimmed); false when none. */
  click(text: string): Promise<boolean> {
    return this.evaluate<boolean>(`(() => {
      const all = [...document.querySelectorAll('button, a, [role="button"], [role="tab"], summary')];
      const el = all.find((e) => e.innerText && e.innerText.trim() === ${JSON.stringify(text)});
      if (!el) return false;
      el.click();
      return true;
    })()`);
  }

  async screenshot(): Promise<Buffer> {
    const { data } = await this.browser.send<{ data: string }>(
      'Page.captureScreenshot',
      { format: 'png' },
      this.sessionId,
    );
    return Buffer.from(data, 'base64');
  }
}
