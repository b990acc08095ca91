"""The Kubernetes manifests of examples/k8s parse and carry what Kubeflow's MPIJob (v2beta1)
and the MS_ROLE dynamic-cluster launch need; they are not run here (no cluster): this checks
their structure, the environment each pod gets, and that both launch the same script."""
import json
from pathlib import Path

K8S = Path(__file__).resolve().parents[2] / "examples" / "k8s"
CLUSTER_VARS = {"MS_ROLE", "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_WORKER_NUM", "MS_CLUSTER_TOKEN"}


def _load(name):
    return json.loads((K8S / name).read_text())


def _containers(template):
    containers = template["spec"]["containers"]
    assert containers and all(c["image"] and c["name"] for c in containers)
    return containers


def test_mpijob_has_kubeflows_required_fields():
    job = _load("mpijob.json")
    assert job["apiVersion"] == "kubeflow.org/v2beta1" and job["kind"] == "MPIJob"
    spec = job["spec"]
    assert spec["mpiImplementation"] == "MPICH" and spec["slotsPerWorker"] >= 1
    launcher, worker = spec["mpiReplicaSpecs"]["Launcher"], spec["mpiReplicaSpecs"]["Worker"]
    assert launcher["replicas"] == 1
    command = _containers(launcher["template"])[0]["command"]
    # the launcher starts one rank per worker slot
    ranks = int(command[command.index("-n") + 1])
    assert command[0] == "mpirun" and ranks == worker["replicas"] * spec["slotsPerWorker"]
    assert "examples/data_parallel/train.py" in command
    _containers(worker["template"])


def test_dynamic_cluster_pods_get_the_ms_role_environment():
    items = {(i["kind"], i["metadata"]["name"]): i for i in _load("dynamic-cluster.json")["items"]}
    service = items[("Service", "minispore-scheduler")]
    scheduler = items[("Job", "minispore-scheduler")]["spec"]
    workers = items[("Job", "minispore-workers")]["spec"]
    assert service["spec"]["selector"] == scheduler["template"]["metadata"]["labels"]
    envs = {}
    for role, job in (("MS_SCHED", scheduler), ("MS_WORKER", workers)):
        container, = _containers(job["template"])
        env = {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}
        assert CLUSTER_VARS <= set(env) and env["MS_ROLE"] == role
        assert env["MS_SCHED_PORT"] == str(service["spec"]["ports"][0]["port"])
        assert "examples/data_parallel/train.py" in " ".join(container["command"])
        envs[role] = env
    assert envs["MS_WORKER"]["MS_SCHED_HOST"] == service["metadata"]["name"]
    assert envs["MS_WORKER"]["MS_WORKER_NUM"] == str(workers["completions"])
    assert workers["completionMode"] == "Indexed"     # MS_NODE_ID from the pod's index
    secret = items[("Secret", "minispore-cluster-token")]["metadata"]["name"]
    for env in envs.values():
        assert env["MS_CLUSTER_TOKEN"]["secretKeyRef"]["name"] == secret
