// The KafkaJS (kafkajs 2.2.4) twin of rdk_consumer.py: one consumer in a group, the harness's log
// lines (T0 <epoch s>, poll <t> <first offset> <count> per batch, done <t> <offset>, commit …,
// close_begin / close_end; t = ms since T0 on the monotonic clock, process.hrtime).
// Strategies (model client "kafkajs"):
//   each_message   run({ eachMessage }) with autoCommit (the default): KafkaJS resolves each message
//                  after eachMessage returns and commits the resolved offsets after every batch
//                  (Runner.processEachMessage, then autoCommitOffsets)
// A batch is what one fetch returned for the partition (logged from the START_BATCH_PROCESS event).
// The planned close (close_delay_ms after record close_after) cuts the record in progress: its
// eachMessage throws, KafkaJS commits what is resolved (Runner.processEachMessage's catch:
// autoCommitOffsets) and disconnect() stops the consumer and leaves the group.
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
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (closing) throw new Closing('closing')
      const left = closeAt === null ? recordMs : Math.min(recordMs, Number(closeAt - process.hrtime.bigint()) / 1e6)
      await sleep(Math.max(0, left))
      if (left < recordMs) {
        close()
        throw new Closing('closing')
      }
      const offset = Number(message.offset)
      log('done ' + now() + ' ' + offset)
      if (closeAfter !== null && offset === closeAfter && closeAt === null) {
        closeAt = process.hrtime.bigint() + BigInt(Math.round(Number(cfg.close_delay_ms) * 1e6))
      }
    },
  })
}

main().catch(e => {
  log('error ' + (t0 === null ? '-' : now()) + ' ' + String(e).replace(/\s+/g, '_'))
  process.exit(1)
})
