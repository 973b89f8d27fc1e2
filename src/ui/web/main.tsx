/** The dashboard page: a header, and the sessions page or a session's page by the address's hash. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { useLiveState } from './api.js';
import { jump } from './format.js';
import { SessionView } from './session.js';
import { SessionsView } from './sessions.js';

function route(): { page: 'sessions' } | { page: 'session'; id: string } {
  const m = /^#\/s\/([^/?]+)/.exec(location.hash);
  return m ? { page: 'session', id: decodeURIComponent(m[1]!) } : { page: 'sessions' };
}

function App() {
  const [where, setWhere] = useState(route);
  const live = useLiveState();
  useEffect(() => {
    const on = (): void => {
      setWhere(route());
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  useEffect(() => {
    document.title = where.page === 'session' ? `${where.id} · baton` : 'Sessions · baton';
  }, [where]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => jump(e, 'main')}>
        Skip to content
      </a>
      <header class="top">
        <a href="#/" class="brand">
          baton
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={where.page === 'sessions' ? 'page' : undefined}>
            Sessions
          </a>
        </nav>
        <span
          class={`live ${live ? 'on' : 'off'}`}
          role="status"
          data-live={live ? 'on' : 'off'}
          title={live ? 'Changes appear as they happen' : 'Not connected to the change feed'}
        >
          {live ? '● live' : '○ offline'}
        </span>
      </header>
      {where.page === 'session' ? <SessionView key={where.id} id={where.id} /> : <SessionsView />}
    </>
  );
}

render(<App />, document.getElementById('app')!);
