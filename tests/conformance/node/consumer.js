// The KafkaJS (kafkajs 2.2.4) twin of rdk_consumer.py: one consumer in a group, the harness's log
// lines (T0 <epoch s>, poll <t> <first offset> <count> per batch, done <t> <offset>, commit …,
// close_begin / close_end; t = ms since T0 on the monotonic clock, process.hrtime).
// Strategies (model client "kafkajs"):
//   each_message   run({ eachMessage }) with autoCommit (the default): KafkaJS resolves each message
//                  after eachMessage returns and commits the resolved offsets after every batch
//                  (Runner.processEachMessage, then autoCommitOffsets)
//   each_batch     run({ eachBatch }) with eachBatchAutoResolve (the default): the loop handles every
//                  message; KafkaJS resolves batch.lastOffset() once eachBatch returns and commits it
//                  (Runner.processEachBatch, then autoCommitOffsets in handleBatch)
//   each_batch_resolve_offset  eachBatchAutoResolve false: resolveOffset(message.offset) and
//                  await heartbeat() after each message, the loop stops when !isRunning() || isStale()
// A batch is what one fetch returned for the partition (logged from the START_BATCH_PROCESS event).
// The planned close (close_delay_ms after record close_after) cuts the record in progress: its
// eachMessage (each_batch: eachBatch) throws, KafkaJS commits what is resolved (the catch of
// Runner.processEachMessage / processEachBatch: autoCommitOffsets) and disconnect() stops the
// consumer and leaves the group; each_batch_resolve_offset's loop leaves the batch without
// resolving the cut message, and handleBatch commits what is resolved.
// With `member` in the config (group.py) it runs as one member of a group: groupMember below.
// Usage: node consumer.js CONFIG.json
'use strict'
const fs = require('fs')
const { Kafka, logLevel } = require('kafkajs')

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const logFd = fs.openSync(cfg.log, 'a')
const log = line => fs.writeSync(logFd, line + '\n')
let t0 = null
const now = () => (Number(process.hrtime.bigint() - t0) / 1e6).toFixed(3)
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const recordMs = Number(cfg.record_processing_ms)
const closeAfter = cfg.close_after == null ? null : Number(cfg.close_after)
let closeAt = null // hrtime ns of the planned close

class Closing extends Error {}

async function main() {
  const kafka = new Kafka({ clientId: 'kafkajs-conformance', brokers: [cfg.bootstrap], logLevel: logLevel.NOTHING })
  const consumer = kafka.consumer({
    groupId: cfg.group,
    sessionTimeout: Number(cfg['session.timeout.ms']) < 6000 ? 6000 : Number(cfg['session.timeout.ms']),
    heartbeatInterval: Number(cfg['heartbeat.interval.ms']),
    maxWaitTimeInMs: 100,
  })
  let closing = false
  const close = async () => {
    if (closing) return
    closing = true
    log('close_begin ' + now())
    await consumer.disconnect()
    log('close_end ' + now())
    process.exit(0)
  }
  consumer.on(consumer.events.START_BATCH_PROCESS, e => {
    if (t0 === null) {
      t0 = process.hrtime.bigint()
      const ms = Date.now()
      log('T0 ' + Math.floor(ms / 1000) + '.' + String(ms % 1000).padStart(3, '0') + '000000')
    }
    log('poll ' + now() + ' ' + e.payload.firstOffset + ' ' + e.payload.batchSize)
  })
  consumer.on(consumer.events.COMMIT_OFFSETS, e => {
    const t = e.payload.topics[0]
    log('commit_seen ' + now() + ' ' + (t ? t.partitions[0].offset : '-'))
  })
  await consumer.connect()
  await consumer.subscribe({ topic: cfg.topic, fromBeginning: true })
  log('subscribed')
  // One message: false when the planned close cut it (the record in progress never lands).
  const handle = async message => {
    if (closing) return false
    const left = closeAt === null ? recordMs : Math.min(recordMs, Number(closeAt - process.hrtime.bigint()) / 1e6)
    await sleep(Math.max(0, left))
    if (left < recordMs) {
      close()
      return false
    }
    const offset = Number(message.offset)
    log('done ' + now() + ' ' + offset)
    if (closeAfter !== null && offset === closeAfter && closeAt === null) {
      closeAt = process.hrtime.bigint() + BigInt(Math.round(Number(cfg.close_delay_ms) * 1e6))
    }
    return true
  }
  const strategy = cfg.strategy === 'auto_commit' ? 'each_message' : cfg.strategy
  if (strategy === 'each_batch') {
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) {
          if (!(await handle(message))) throw new Closing('closing')
        }
      },
    })
  } else if (strategy === 'each_batch_resolve_offset') {
    await consumer.run({
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (const message of batch.messages) {
          if (!isRunning() || isStale() || !(await handle(message))) break
          resolveOffset(message.offset)
          await heartbeat()
        }
      },
    })
  } else {
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (!(await handle(message))) throw new Closing('closing')
      },
    })
  }
}

// One member of a group among several (group.py), with the group lines of the Java and librdkafka
// members; times in ms since the case's epoch on CLOCK_MONOTONIC (process.hrtime). KafkaJS shows
// no generation: `assigned` and `revoked` carry -1, as librdkafka's do. Its default assigner is
// round robin and its protocol eager, so each GROUP_JOIN first revokes what the member held:
// `revoked <t> -1 p…`, then `assigned <t> -1 p:committed…` (the committed offsets read by an admin
// client). `poll <t> <p> <first> <n>` per batch (START_BATCH_PROCESS), `done <t> <p> <offset>` per
// message. Until G (the go file) the first message waits in eachMessage (each_batch_resolve_offset:
// in eachBatch's loop), heartbeating (so the member still takes part in the formation's rebalances),
// so that the members' first records start at G together: a paused topic's first fetch after
// resume() came 0.9–1.1 s late. Crash events only.
async function groupMember() {
  const epoch = BigInt(cfg.epoch_ns)
  const t = () => (Number(process.hrtime.bigint() - epoch) / 1e6).toFixed(3)
  const kafka = new Kafka({ clientId: 'consumer-' + cfg.member, brokers: [cfg.bootstrap], logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  const consumer = kafka.consumer({
    groupId: cfg.group,
    sessionTimeout: Number(cfg['session.timeout.ms']),
    heartbeatInterval: Number(cfg['heartbeat.interval.ms']),
    maxWaitTimeInMs: 100,
  })
  log('client kafkajs 2.2.4 classic member ' + cfg.member)
  let going = false
  let held = []
  let joins = Promise.resolve() // the lines of one join after the other's (the offsets are read async)
  consumer.on(consumer.events.GROUP_JOIN, e => {
    const at = t()
    const parts = (e.payload.memberAssignment[cfg.topic] || []).slice().sort((a, b) => a - b)
    joins = joins.then(async () => {
      if (held.length) log('revoked ' + at + ' -1 ' + held.join(' '))
      held = parts
      let desc = ''
      if (parts.length) {
        const [offs] = await admin.fetchOffsets({ groupId: cfg.group, topics: [cfg.topic] })
        const by = new Map(offs.partitions.map(p => [p.partition, Number(p.offset)]))
        desc = parts.map(p => ' ' + p + ':' + ((by.get(p) ?? -1) < 0 ? 'none' : by.get(p))).join('')
      }
      log('assigned ' + at + ' -1' + desc)
    })
  })
  consumer.on(consumer.events.START_BATCH_PROCESS, e => {
    log('poll ' + t() + ' ' + e.payload.partition + ' ' + e.payload.firstOffset + ' ' + e.payload.batchSize)
  })
  await consumer.connect()
  await consumer.subscribe({ topic: cfg.topic, fromBeginning: true })
  const goAt = () => {
    try {
      const s = fs.readFileSync(cfg.go_file, 'utf8').trim()
      return s.endsWith(';') ? BigInt(s.slice(0, -1)) : null
    } catch (e) {
      return null
    }
  }
  const each = async (partition, message, heartbeat) => {
    while (!going) {
      const at = goAt()
      if (at !== null) {
        // The last stretch in one timer (a heartbeat throwing REBALANCE_IN_PROGRESS ends the batch).
        await sleep(Math.max(0, Number(epoch + at - process.hrtime.bigint()) / 1e6))
        going = true
        log('go ' + t())
        break
      }
      await heartbeat()
      await sleep(2)
    }
    await sleep(recordMs)
    log('done ' + t() + ' ' + partition + ' ' + Number(message.offset))
  }
  if (cfg.strategy === 'each_batch_resolve_offset') {
    // eachBatch as eachMessage runs it: resolveOffset and the payload's heartbeat (Runner.heartbeat,
    // which commits what is resolved when it meets a rebalance) after each message.
    await consumer.run({
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (const message of batch.messages) {
          if (!isRunning() || isStale()) break
          await each(batch.partition, message, heartbeat)
          resolveOffset(message.offset)
          await heartbeat()
        }
      },
    })
  } else {
    await consumer.run({ eachMessage: ({ partition, message, heartbeat }) => each(partition, message, heartbeat) })
  }
}

;(cfg.member ? groupMember() : main()).catch(e => {
  log('error ' + (t0 === null ? '-' : now()) + ' ' + String(e).replace(/\s+/g, '_'))
  process.exit(1)
})
