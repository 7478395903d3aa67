import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Session, loadSession, saveSession, signOut } from './api';
import { MessagesPage } from './pages/messages';
import { RunPage, RunsPage } from './pages/runs';
import { SignInPage } from './pages/sign-in';
import { TemplatesPage } from './pages/templates';
import { VendorsPage } from './pages/vendors';
import { WorkflowPage, WorkflowsPage } from './pages/workflows';
import { Link, navigate, useLocation } from './ui';
import './styles.css';

const SECTIONS = [
  ['runs', 'Runs'],
  ['messages', 'Messages'],
  ['workflows', 'Workflows'],
  ['templates', 'Templates'],
  ['vendors', 'Vendors'],
] as const;

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const { path, query } = useLocation();

  if (!session) {
    return (
      <SignInPage
        onSignedIn={(created) => {
          saveSession(created);
          setSession(created);
          navigate('runs');
        }}
      />
    );
  }
  const [section, id] = path.split('/').map(decodeURIComponent);
  return (
    <div className="layout">
      <header>
        <strong>Herald console</strong>
        <nav>
          {SECTIONS.map(([to, label]) => (
            <Link key={to} to={to} className={section === to ? 'active' : undefined}>
              {label}
            </Link>
          ))}
        </nav>
        <span className="muted">workspace {session.workspace}</span>
        <button
          type="button"
          onClick={() => {
            void signOut(session).finally(() => {
              setSession(null);
              navigate('');
            });
          }}
        >
          Sign out
        </button>
      </header>
      <main>{page(session, section, id, query)}</main>
    </div>
  );
}

function page(session: Session, section: string, id: string | undefined, query: URLSearchParams) {
  switch (section) {
    case 'runs':
      return id ? <RunPage session={session} runId={id} /> : <RunsPage session={session} query={query} />;
    case 'messages':
      return <MessagesPage session={session} query={query} />;
    case 'workflows':
      return id ? <WorkflowPage session={session} slug={id} /> : <WorkflowsPage session={session} />;
    case 'templates':
      return <TemplatesPage session={session} slug={id} />;
    case 'vendors':
      return <VendorsPage session={session} />;
    default:
      return <RunsPage session={session} query={query} />;
  }
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
