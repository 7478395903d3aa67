import { StrictMode, Suspense, lazy, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Session, loadSession, roleOf, saveSession, signOut } from './api';
import { AuditPage } from './pages/audit';
import { PeoplePage } from './pages/people';
import { ListPage, ListsPage, ObjectPage, ObjectsPage, TenantPage, TenantsPage } from './pages/audience';
import { MessagePage } from './pages/message';
import { MessagesPage } from './pages/messages';
import { OverviewPage } from './pages/overview';
import { RunPage, RunsPage } from './pages/runs';
import { SignInPage } from './pages/sign-in';
import { TemplatesPage } from './pages/templates';
import { UserPage, UsersPage } from './pages/users';
import { VendorsPage } from './pages/vendors';
import { WorkflowPage, WorkflowsPage } from './pages/workflows';
import { Link, navigate, useLocation } from './ui';
import './styles.css';

/** The editor brings CodeMirror: loaded when first opened (its own chunk). */
const WorkflowEditorPage = lazy(() => import('./pages/workflow-editor').then((module) => ({ default: module.WorkflowEditorPage })));

const SECTIONS = [
  ['overview', 'Overview'],
  ['runs', 'Runs'],
  ['messages', 'Messages'],
  ['users', 'Users'],
  ['lists', 'Lists'],
  ['tenants', 'Tenants'],
  ['objects', 'Objects'],
  ['workflows', 'Workflows'],
  ['templates', 'Templates'],
  ['vendors', 'Vendors'],
  ['people', 'People'],
  ['audit', 'Audit'],
] as const;

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const { path, query } = useLocation();

  if (!session) {
    return (
      <SignInPage
        invitation={path === 'accept-invitation' ? (query.get('token') ?? undefined) : undefined}
        passwordReset={path === 'reset-password' ? (query.get('token') ?? undefined) : undefined}
        onSignedIn={(created) => {
          saveSession(created);
          setSession(created);
          navigate('runs');
        }}
      />
    );
  }
  const [section, id, view] = path.split('/').map(decodeURIComponent);
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
        <span className="muted">
          workspace {session.workspace} · {session.operator?.email ?? 'service token'} <span className="role">{roleOf(session)}</span>
        </span>
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
      <main>
        <Suspense fallback={<p className="muted">loading…</p>}>{page(session, section, id, query, view)}</Suspense>
      </main>
    </div>
  );
}

function page(session: Session, section: string, id: string | undefined, query: URLSearchParams, view?: string) {
  switch (section) {
    case 'runs':
      return id ? <RunPage session={session} runId={id} /> : <RunsPage session={session} query={query} />;
    case 'messages':
      return id ? <MessagePage session={session} messageId={id} /> : <MessagesPage session={session} query={query} />;
    case 'overview':
      return <OverviewPage session={session} query={query} />;
    case 'users':
      return id ? <UserPage session={session} distinctId={id} /> : <UsersPage session={session} query={query} />;
    case 'lists':
      return id ? <ListPage session={session} listId={id} query={query} /> : <ListsPage session={session} query={query} />;
    case 'tenants':
      return id ? <TenantPage session={session} tenantId={id} /> : <TenantsPage session={session} query={query} />;
    case 'objects':
      return id && view ? <ObjectPage session={session} objectType={id} objectId={view} /> : <ObjectsPage session={session} query={query} />;
    case 'workflows':
      if (id === '+new') return <WorkflowEditorPage session={session} />;
      if (id && view === 'edit') return <WorkflowEditorPage session={session} slug={id} />;
      return id ? <WorkflowPage session={session} slug={id} /> : <WorkflowsPage session={session} />;
    case 'templates':
      return <TemplatesPage session={session} slug={id} />;
    case 'vendors':
      return <VendorsPage session={session} />;
    case 'people':
      return <PeoplePage session={session} />;
    case 'audit':
      return <AuditPage session={session} />;
    default:
      return <RunsPage session={session} query={query} />;
  }
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
