"""A Kafka broker for tests and benchmarks: KRaft mode, one JVM on 127.0.0.1, jars from
python/tests/kafka/lib (`scripts/setup.sh --dev`); and topic creation through a Spark session's
kafka-clients. Imports neither pytest nor conftest, so benchmarks/kafka_acceptance.py uses it too."""

from __future__ import annotations

import base64
import socket
import subprocess
import time
import uuid
from pathlib import Path

BROKER_LIB = Path(__file__).parent / "kafka" / "lib"
BROKER_START_S = 60


class BrokerError(RuntimeError):
    """The broker's jars are missing, or it did not start in time."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Broker:
    """A Kafka broker and controller in one JVM on 127.0.0.1, its log in a temporary folder."""

    def __init__(self, root: Path):
        self.root = root
        self.port = _free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.log = root / "broker.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if not any(BROKER_LIB.glob("kafka_2.13-*.jar")):
            raise BrokerError(f"no Kafka broker jars in {BROKER_LIB}: run scripts/setup.sh --dev")
        controller = _free_port()
        config = self.root / "server.properties"
        config.write_text(
            "process.roles=broker,controller\nnode.id=1\n"
            f"controller.quorum.voters=1@127.0.0.1:{controller}\n"
            f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{controller}\n"
            f"advertised.listeners=PLAINTEXT://{self.bootstrap}\ncontroller.listener.names=CONTROLLER\n"
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n"
            f"log.dirs={self.root / 'data'}\noffsets.topic.replication.factor=1\n"
            "transaction.state.log.replication.factor=1\ntransaction.state.log.min.isr=1\n"
            "auto.create.topics.enable=false\ngroup.initial.rebalance.delay.ms=0\n"
        )
        java = ["java", "-Xmx256m", "-cp", f"{BROKER_LIB}/*"]
        # Kafka's own random ids never start with "-" (StorageTool would read one as an option)
        cluster_id = "-"
        while cluster_id.startswith("-"):
            cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        subprocess.run(
            [*java, "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(config)],
            check=True, capture_output=True, timeout=60,
        )
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen([*java, "kafka.Kafka", str(config)], stdout=log, stderr=log)
        deadline = time.monotonic() + BROKER_START_S
        while "Kafka Server started" not in self.log.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])
                raise BrokerError(f"the Kafka broker did not start within {BROKER_START_S} s; its log ends:\n{tail}")
            time.sleep(0.5)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def admin(spark, broker: Broker):
    """A kafka-clients Admin of `broker`, from the Spark session's JVM (close it after use)."""
    jvm = spark._jvm
    props = jvm.java.util.Properties()
    props.setProperty("bootstrap.servers", broker.bootstrap)
    return jvm.org.apache.kafka.clients.admin.Admin.create(props)


def create_topic(spark, broker: Broker, topic: str, partitions: int) -> None:
    jvm = spark._jvm
    client = admin(spark, broker)
    try:
        topics = jvm.java.util.ArrayList()
        topics.add(jvm.org.apache.kafka.clients.admin.NewTopic(topic, partitions, jvm.java.lang.Short.valueOf("1")))
        client.createTopics(topics).all().get()
    finally:
        client.close()
