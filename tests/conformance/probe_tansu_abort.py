"""Evidence for the R8 note: on tansu 0.6.0 a read_committed reader hides an OPEN
transaction's records (last stable offset) but sees them once the transaction is aborted
(by abort_transaction() or by fencing with init_transactions()). Real Kafka hides aborted
records from read_committed readers. Usage: python3 probe_tansu_abort.py crash|abort
(after setup.sh). Prints what each isolation level reads before and after the fence."""
import os, sys, time, subprocess, socket
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, os.path.join(HERE, '.cache', 'py'))
from confluent_kafka import Producer, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
s=socket.socket(); s.bind(('127.0.0.1',0)); port=s.getsockname()[1]; s.close()
b='127.0.0.1:%d'%port
br=subprocess.Popen([os.path.join(HERE, '.cache', 'bin', 'tansu'),'broker','--listener-url','tcp://'+b,'--advertised-listener-url','tcp://'+b,'--storage-engine','memory://tansu/'],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
time.sleep(0.5)
a=AdminClient({'bootstrap.servers':b}); a.create_topics([NewTopic('out',1,1)])['out'].result(10)
def read(iso):
    c=Consumer({'bootstrap.servers':b,'group.id':'r'+iso,'isolation.level':iso,'log_level':0})
    c.assign([TopicPartition('out',0,0)]); vals=[]; end=time.time()+2
    while time.time()<end:
        for m in c.consume(100,0.2):
            if not m.error(): vals.append(m.value().decode())
    lo,hi=c.get_watermark_offsets(TopicPartition('out',0)); c.close(); return vals,hi
mode=sys.argv[1]
child = r'''
import sys,os; sys.path.insert(0,%r)
from confluent_kafka import Producer
p=Producer({'bootstrap.servers':'%s','transactional.id':'t1','linger.ms':0})
p.init_transactions(10)
p.begin_transaction(); [p.produce('out',value=v) for v in ('c1','c2','c3')]; p.commit_transaction(10)
p.begin_transaction(); [p.produce('out',value=v) for v in ('a1','a2')]; p.flush(10)
if '%s'=='abort': p.abort_transaction(10)
os._exit(9)
''' % (os.path.join(HERE, '.cache', 'py'), b, mode)
subprocess.run([sys.executable,'-c',child])
print('open/aborted, before fence: rc', read('read_committed'), 'ru', read('read_uncommitted'))
p=Producer({'bootstrap.servers':b,'transactional.id':'t1','log_level':0}); p.init_transactions(10); del p
time.sleep(0.5)
print('after fence: rc', read('read_committed'), 'ru', read('read_uncommitted'))
br.kill()
